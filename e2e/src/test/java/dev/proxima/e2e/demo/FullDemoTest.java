package dev.proxima.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FullDemoTest {
  @TempDir Path directory;

  @Test
  void runsTheControllerThenAProxyPerNodeAndWritesEachNodesRuleset() throws Exception {
    var text = new StringWriter();

    int exitCode = FullDemo.run(new PrintWriter(text, true), directory);

    var out = text.toString();
    assertThat(exitCode).as(out).isZero();
    assertThat(out)
        .contains("== Controller ==")
        .contains("Service demo/dns  trafficDistribution=PreferSameNode  (hints written)")
        .contains("== Proxy on node-a1 (dry-run) ==")
        .contains("== Proxy on node-c2 (dry-run) ==");
    // What the controller wrote is what each node's proxy follows.
    var nodeB2 =
        out.substring(out.indexOf("== Proxy on node-b2"), out.indexOf("== Proxy on node-c1"));
    assertThat(nodeB2)
        .contains(
            "demo/dns port udp-53/UDP  trafficDistribution=PreferSameNode  topology=PreferSameNode")
        .contains("cluster:   10.244.3.10:53\n")
        .contains(
            "demo/checkout port tcp-8080/TCP  trafficDistribution=PreferSameZone  topology=PreferSameZone")
        .contains("cluster:   10.244.2.20:8080\n");
    for (var node :
        new String[] {"node-a1", "node-a2", "node-b1", "node-b2", "node-c1", "node-c2"}) {
      assertThat(Files.readString(directory.resolve(node + ".nft")))
          .startsWith("add table ip proxima");
    }
  }
}
