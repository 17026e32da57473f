package dev.proxima.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DemoCommandTest {
  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    var out = new java.io.StringWriter();
    var err = new java.io.StringWriter();
    var commandLine = ControllerMain.commandLine();
    commandLine.setOut(new java.io.PrintWriter(out));
    commandLine.setErr(new java.io.PrintWriter(err));
    return new Run(commandLine.execute(args), out.toString(), err.toString());
  }

  @Test
  void runsTheControllerOnTheExampleClusterAndReportsEveryCase() {
    var result = run("demo");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .contains("Seeded 6 nodes, 6 services, 6 endpoint slices")
        .contains("Service demo/dns  trafficDistribution=PreferSameNode  (hints written)")
        .contains("10.244.0.10    node-a1   zone-a  true   forZones=[zone-a] forNodes=[node-a1]")
        .contains("Service demo/checkout  trafficDistribution=PreferSameZone")
        .contains("10.244.3.20    node-b2   zone-b  false  -")
        .contains("Service demo/catalog  trafficDistribution=PreferClose")
        .contains("Service demo/search  trafficDistribution=<none>  (no value: hints removed)")
        .contains(
            "Service demo/reports  trafficDistribution=PreferSameRack  (unsupported value: hints removed)")
        .contains("Warning demo/reports UnsupportedTrafficDistribution")
        .contains(
            "Service demo/inventory  trafficDistribution=<none>  (topology-mode Auto: CPU-proportional zone hints)")
        .contains("10.244.5.60    node-c2   zone-c  true   forZones=[zone-c]")
        .contains("Normal demo/inventory TopologyAwareHintsEnabled");
    assertThat(result.out()).doesNotContain("zone-a  true   forZones=[zone-a]\n  10.244.1.40");
  }
}
