package dev.proxima.proxy.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.proxima.proxy.cli.ProxyMain;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Upstream kube-proxy's packet-flow expectations, checked with real packets through Proxima's rules
 * in both modes. For each scenario of {@code conformance/upstream-packet-flows.yaml} the {@code
 * render} command renders the ruleset for upstream's node from the scenario's Services and slices,
 * the mode's own tool loads it into a scratch node namespace ({@link ScratchNode}), and every case
 * sends fresh TCP connections or UDP datagrams from its source and reads what became of them: which
 * endpoints answered and which source they saw, or a drop, a reject, or no proxying at all. A case
 * passes when that is upstream's expectation, or the difference the table declares for the mode; a
 * declared difference that no longer shows fails too, so the table stays true.
 *
 * <p>Of the root tier ({@link RootTier}): needs root, {@code ip}, {@code nft}, {@code
 * iptables-restore} and {@code ip6tables-restore}; without them it is skipped with the reason, or
 * fails when PROXIMA_E2E_REQUIRED=true (as in CI). {@link PacketFlowTraceTest} checks the same
 * table for nftables mode without root, through a fake and a tracer. See docs/testing.md.
 */
class PacketFlowConformanceTest {
  private static ScratchNode scratch;
  private static Path work;

  @AfterAll
  static void tearDown() throws IOException {
    if (scratch != null) {
      scratch.close();
    }
    if (work != null) {
      try (var files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  @Test
  void theTableDeclaresEveryDifferenceWithAReasonAndOnlyWhereProximaReallyDiffers() {
    var table = FlowTable.load();

    assertThat(table.node().addresses())
        .as("upstream's node IPs")
        .containsExactly(
            "192.168.0.2", "192.168.1.2", "192.168.99.11", "2001:db8::1", "2001:db8:1::2");
    assertThat(table.settings().clusterCidrs())
        .as("upstream's pod CIDRs")
        .containsExactly("10.0.0.0/8", "fd00:10::/64");
    assertThat(table.settings().nodePortAddresses())
        .as("upstream's NodePort addresses")
        .containsExactly("192.168.0.2/32", "2001:db8::1/128");
    for (var scenario : table.scenarios()) {
      assertThat(scenario.cases()).as(scenario.name()).isNotEmpty();
      assertThat(scenario.upstream()).as(scenario.name()).startsWith("Test");
      for (var flow : scenario.cases()) {
        flow.proxima()
            .forEach(
                (mode, difference) -> {
                  assertThat(difference.outcome())
                      .as("%s / %s: a difference equal to upstream", scenario.name(), flow.name())
                      .isNotEqualTo(flow.upstream());
                  assertThat(difference.reason()).isNotBlank();
                });
      }
    }
  }

  @Test
  void anAnswerIsClassifiedByWhoAnsweredAndWhichSourceTheySaw() {
    assertThat(ScratchNode.classify("timeout", "10.0.0.2").kind()).isEqualTo(FlowTable.Kind.DROP);
    assertThat(ScratchNode.classify("refused", "10.0.0.2").kind()).isEqualTo(FlowTable.Kind.REJECT);
    var masqueraded =
        ScratchNode.classify(
            "endpoint 10.180.0.1:80 169.254.1.1|endpoint 10.180.2.1:80 169.254.1.1", "10.0.0.2");
    assertThat(masqueraded.endpoints()).containsExactlyInAnyOrder("10.180.0.1:80", "10.180.2.1:80");
    assertThat(masqueraded.masq()).isTrue();
    assertThat(ScratchNode.classify("endpoint 10.180.0.1:80 10.0.0.2", "10.0.0.2").masq())
        .isFalse();
    assertThat(ScratchNode.classify("endpoint 10.180.0.1:80 10.0.0.2|timeout", "10.0.0.2"))
        .as("answered, then dropped: no single outcome")
        .isNull();
    assertThat(ScratchNode.classify("sink 172.30.0.50:80 10.0.0.2", "10.0.0.2").kind())
        .isEqualTo(FlowTable.Kind.PASS);
    assertThat(ScratchNode.classify("host 192.168.1.2:3001 203.0.113.2", "203.0.113.2").kind())
        .isEqualTo(FlowTable.Kind.HOST);
  }

  @RootTier
  @TestFactory
  Stream<DynamicNode> everyUpstreamPacketFlowThroughProximasRulesInBothModes() throws IOException {
    requireHost();
    var table = FlowTable.load();
    work = Files.createTempDirectory("proxima-conformance");
    scratch = ScratchNode.build(work, table);
    return Stream.of(ProxyMode.nftables, ProxyMode.iptables)
        .map(
            mode ->
                dynamicContainer(
                    mode.name(),
                    table.scenarios().stream().map(scenario -> scenario(table, mode, scenario))));
  }

  private static DynamicNode scenario(
      FlowTable table, ProxyMode mode, FlowTable.Scenario scenario) {
    var loaded = new boolean[1];
    var tests = new ArrayList<DynamicNode>();
    tests.add(
        dynamicTest(
            "renders and loads the ruleset",
            () -> {
              scratch.prepare(scenario);
              scratch.load(mode, scenario.ipv6(), render(table, mode, scenario));
              loaded[0] = true;
            }));
    for (var flow : scenario.cases()) {
      tests.add(
          dynamicTest(
              flow.name(),
              () -> {
                if (!loaded[0]) {
                  fail("the scenario's ruleset did not load");
                }
                check(mode, scenario, flow);
              }));
    }
    return dynamicContainer(scenario.name() + " [" + scenario.upstream() + "]", tests);
  }

  private static void check(ProxyMode mode, FlowTable.Scenario scenario, FlowTable.FlowCase flow)
      throws IOException {
    var expected = flow.expected(mode);
    var observation = scratch.probe(scenario, flow, attempts(flow, mode));
    var observed = observation.outcome();
    var difference = flow.proxima().get(mode);
    var route =
        String.format(
            Locale.ROOT, "%s -> %s:%d/%s", flow.from(), flow.to(), flow.port(), flow.protocol());
    if (difference != null && flow.upstream().equals(observed)) {
      fail(
          "%s now behaves as upstream expects (%s) in %s mode: remove the declared difference (%s)"
              + " from %s and docs/testing.md",
          route, observed, mode, difference.reason(), FlowTable.RESOURCE);
    }
    if (!expected.equals(observed)) {
      fail(
          "%s: expected %s%s, got %s (raw: %s)%n%s ruleset:%n%s",
          route,
          expected,
          difference == null ? " (upstream)" : " (Proxima's declared difference)",
          observed == null ? "no single outcome" : observed,
          observation.raw(),
          mode,
          scratch.listRules(mode, scenario.ipv6()));
    }
  }

  /**
   * Enough fresh connections that every expected endpoint answers at least once, all but surely: 12
   * per endpoint miss one of two with odds 2 in 2^24, one of three 3 in 1.5^36 (about 1 in 750
   * 000), so the suite's some hundred such cases stay far from a flake.
   */
  private static int attempts(FlowTable.FlowCase flow, ProxyMode mode) {
    int endpoints =
        Math.max(flow.upstream().endpoints().size(), flow.expected(mode).endpoints().size());
    return endpoints == 0 ? 3 : 12 * endpoints;
  }

  private static String render(FlowTable table, ProxyMode mode, FlowTable.Scenario scenario)
      throws IOException {
    return render(table, mode, scenario, work);
  }

  /**
   * The ruleset the {@code render} command prints for upstream's node and this scenario, its state
   * file written to {@code work}.
   */
  static String render(FlowTable table, ProxyMode mode, FlowTable.Scenario scenario, Path work)
      throws IOException {
    var state =
        Files.writeString(
            Files.createTempFile(work, "state", ".yaml"),
            ScenarioObjects.stateFile(table.node(), scenario));
    var args = new ArrayList<>(List.of("render", "--state", state.toString(), "--node"));
    args.add(table.node().name());
    args.addAll(List.of("--mode", mode.name(), "--family", scenario.ipv6() ? "ipv6" : "ipv4"));
    var settings = scenario.settings();
    if (!settings.clusterCidrs().isEmpty()) {
      args.add("--cluster-cidr=" + String.join(",", settings.clusterCidrs()));
    }
    if (!settings.nodePortAddresses().isEmpty()) {
      args.add("--nodeport-addresses=" + String.join(",", settings.nodePortAddresses()));
    }
    if (settings.masqueradeAll()) {
      args.add("--masquerade-all");
    }
    if (settings.detectLocalMode() != null) {
      args.add("--detect-local-mode=" + settings.detectLocalMode());
    }
    if (settings.podBridgeInterface() != null) {
      args.add("--pod-bridge-interface=" + settings.podBridgeInterface());
    }
    if (settings.podInterfaceNamePrefix() != null) {
      args.add("--pod-interface-name-prefix=" + settings.podInterfaceNamePrefix());
    }
    var out = new StringWriter();
    var err = new StringWriter();
    var exit =
        ProxyMain.commandLine()
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(err))
            .execute(args.toArray(String[]::new));
    assertThat(exit).as("render %s: %s", args, err).isZero();
    return out.toString();
  }

  private static void requireHost() {
    var missing = new ArrayList<String>();
    for (var tool : List.of("ip", "nft", "iptables-restore", "ip6tables-restore")) {
      if (HostTools.onPath(tool).isEmpty() && !Files.isExecutable(Path.of("/usr/sbin", tool))) {
        missing.add(tool);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    var reason =
        "The packet-flow conformance suite cannot run here; missing: "
            + String.join(", ", missing)
            + ". Run it as root with iproute2, nftables and iptables installed (sudo ./test.sh"
            + " installs them); see docs/testing.md.";
    if ("true".equalsIgnoreCase(System.getenv("PROXIMA_E2E_REQUIRED"))) {
      fail(reason + " (PROXIMA_E2E_REQUIRED=true)");
    }
    Assumptions.abort(reason);
  }
}
