package dev.proxima.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a run of the demo must show, whichever way it was started. */
final class DemoOutput {
  static final List<String> NODES =
      List.of("node-a1", "node-a2", "node-b1", "node-b2", "node-c1", "node-c2");

  private DemoOutput() {}

  /** The controller's hints, then each node's routing, with node-b2's checked line by line. */
  static void assertHintsAndRouting(String out) {
    assertThat(out)
        .contains("== Controller ==")
        .contains("Service demo/dns  trafficDistribution=PreferSameNode  (hints written)")
        .contains("forNodes=[node-b2]")
        .contains("Service demo/checkout  trafficDistribution=PreferSameZone  (hints written)");
    for (var node : NODES) {
      assertThat(out).contains("== Proxy on " + node + " (dry-run) ==");
    }
    // What the controller wrote is what each node's proxy follows.
    var nodeB2 =
        out.substring(out.indexOf("== Proxy on node-b2"), out.indexOf("== Proxy on node-c1"));
    assertThat(nodeB2)
        .contains(
            "demo/dns port udp-53/UDP  trafficDistribution=PreferSameNode  topology=PreferSameNode")
        .contains("Cluster policy: 10.244.3.10:53 (filtered by topology: PreferSameNode)\n")
        .contains(
            "demo/checkout port tcp-8080/TCP  trafficDistribution=PreferSameZone  topology=PreferSameZone")
        .contains("Cluster policy: 10.244.2.20:8080 (filtered by topology: PreferSameZone)\n");
  }

  /** One nft script per node, each a whole ruleset an operator could load. */
  static void assertRulesetsWritten(Path directory) throws IOException {
    for (var node : NODES) {
      var file = directory.resolve(node + ".nft");
      assertThat(file).as("the ruleset of " + node).exists();
      assertThat(Files.readString(file)).startsWith("add table ip proxima");
    }
  }
}
