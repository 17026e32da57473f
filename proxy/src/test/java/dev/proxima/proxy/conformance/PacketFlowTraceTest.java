package dev.proxima.proxy.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.NftTracer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packet-flow table of {@link PacketFlowConformanceTest} without root or a kernel: for each
 * scenario the {@code render} command's nftables ruleset goes into {@link FakeNft}, and {@link
 * NftTracer} follows each case's first packet through it, from where {@link ScratchNode} would send
 * it (the node itself, or the pod, endpoint or external side of the node). A case passes on the
 * same terms as there: upstream's outcome, or the difference the table declares for nftables, and a
 * declared difference that no longer shows fails.
 *
 * <p>nftables mode only: iptables mode is covered by the real-kernel tier alone ({@link
 * PacketFlowConformanceTest}, as root). The tracer models netfilter's hooks and the rules, not
 * routing beyond "one of the node's addresses or not", conntrack beyond a connection's first
 * packet, or the sockets; the kernel tier stays the judge of those.
 */
class PacketFlowTraceTest {
  @TempDir Path work;

  @TestFactory
  Stream<DynamicNode> everyUpstreamPacketFlowThroughTheNftablesRulesAsTraced() {
    var table = FlowTable.load();
    return table.scenarios().stream().map(scenario -> scenario(table, scenario));
  }

  @Test
  void aRuleOfSyntaxTheTracerDoesNotKnowFailsTheTraceInsteadOfPassing() {
    var nft = new FakeNft();
    nft.apply(
        """
        add table ip proxima
        add chain ip proxima nat-prerouting { type nat hook prerouting priority -100 ; }
        add chain ip proxima unusual
        add rule ip proxima unusual ip dscp 46 drop
        """);

    assertThatThrownBy(() -> new NftTracer(nft, List.of("192.168.0.2")))
        .hasMessageContaining("ip dscp 46 drop")
        .hasMessageContaining("dscp");
  }

  @Test
  void aTraceFollowsEveryEndpointANumgenCanPickAndNamesTheChainsOnTheWay() {
    var nft = new FakeNft();
    nft.apply(
        """
        add table ip proxima
        add chain ip proxima nat-prerouting { type nat hook prerouting priority -100 ; }
        add chain ip proxima lb
        add map ip proxima lb { typeof ip daddr . numgen random mod 2 : ip daddr . th dport ; }
        add rule ip proxima nat-prerouting ip daddr 172.30.0.41 meta l4proto tcp jump lb
        add rule ip proxima lb dnat ip to ip daddr . numgen random mod 2 map @lb
        add element ip proxima lb { 172.30.0.41 . 0 : 10.1.0.1 . 8080, 172.30.0.41 . 1 : 10.1.0.2 . 8080 }
        """);
    var tracer = new NftTracer(nft, List.of("192.168.0.2"));

    var traces = tracer.traceAll(new NftTracer.Packet("10.0.0.2", "172.30.0.41", "tcp", 80, "vp"));

    assertThat(NftTracer.endpoints(traces)).containsExactly("10.1.0.1:8080", "10.1.0.2:8080");
    assertThat(traces.get(0).path()).containsExactly("nat-prerouting", "lb");
    assertThat(tracer.traceAll(new NftTracer.Packet("10.0.0.2", "172.30.0.42", "tcp", 80, "vp")))
        .extracting(NftTracer.Trace::verdict)
        .containsExactly(NftTracer.Verdict.NOT_HANDLED);
  }

  private DynamicNode scenario(FlowTable table, FlowTable.Scenario scenario) {
    var tracer = new NftTracer[1];
    var tests = new ArrayList<DynamicNode>();
    tests.add(
        dynamicTest(
            "renders and loads the ruleset into the fake",
            () -> tracer[0] = load(table, scenario)));
    for (var flow : scenario.cases()) {
      tests.add(
          dynamicTest(
              flow.name(),
              () -> {
                if (tracer[0] == null) {
                  fail("the scenario's ruleset did not load");
                }
                check(table, scenario, flow, tracer[0]);
              }));
    }
    return dynamicContainer(scenario.name() + " [" + scenario.upstream() + "]", tests);
  }

  private NftTracer load(FlowTable table, FlowTable.Scenario scenario) throws IOException {
    var nft = new FakeNft();
    nft.apply(PacketFlowConformanceTest.render(table, ProxyMode.nftables, scenario, work));
    return new NftTracer(nft, table.node().addresses());
  }

  private static void check(
      FlowTable table, FlowTable.Scenario scenario, FlowTable.FlowCase flow, NftTracer tracer) {
    var packet =
        new NftTracer.Packet(
            flow.from(),
            flow.to(),
            flow.protocol(),
            flow.port(),
            inputInterface(table, scenario, flow));
    var traces = tracer.traceAll(packet);
    var observed = outcome(table, flow, traces);
    var expected = flow.expected(ProxyMode.nftables);
    var difference = flow.proxima().get(ProxyMode.nftables);
    var route =
        String.format(
            Locale.ROOT, "%s -> %s:%d/%s", flow.from(), flow.to(), flow.port(), flow.protocol());
    if (difference != null && flow.upstream().equals(observed)) {
      fail(
          "%s now behaves as upstream expects (%s) as traced: remove the declared difference (%s)"
              + " from %s and docs/testing.md",
          route, observed, difference.reason(), FlowTable.RESOURCE);
    }
    if (!expected.equals(observed)) {
      fail(
          "%s: expected %s%s, traced %s:%n%s",
          route,
          expected,
          difference == null ? " (upstream)" : " (Proxima's declared difference)",
          observed == null ? "no single outcome" : observed,
          String.join("\n", traces.stream().map(Object::toString).toList()));
    }
  }

  /**
   * Where {@link ScratchNode} sends from: the node itself (no input interface), or its veth to the
   * endpoints, the pods or the outside.
   */
  private static String inputInterface(
      FlowTable table, FlowTable.Scenario scenario, FlowTable.FlowCase flow) {
    var source = FlowTable.address(flow.from());
    if (table.node().addresses().stream().map(FlowTable::address).anyMatch(source::equals)) {
      return null;
    }
    if (scenario.endpointAddresses().stream().map(FlowTable::address).anyMatch(source::equals)) {
      return "ve";
    }
    if (table.settings().clusterCidrs().stream()
        .anyMatch(cidr -> NftTracer.matches(cidr, flow.from()))) {
      return "vp";
    }
    return "vx";
  }

  /** What the traces say, in the table's terms; null when they disagree but for the endpoint. */
  private static FlowTable.Outcome outcome(
      FlowTable table, FlowTable.FlowCase flow, List<NftTracer.Trace> traces) {
    Set<FlowTable.Outcome> outcomes = new LinkedHashSet<>();
    var endpoints = new LinkedHashSet<String>();
    for (var trace : traces) {
      var kind =
          switch (trace.verdict()) {
            case DNAT -> FlowTable.Kind.ENDPOINTS;
            case DROP -> FlowTable.Kind.DROP;
            case REJECT -> FlowTable.Kind.REJECT;
            case NOT_HANDLED ->
                table.node().addresses().stream()
                        .map(FlowTable::address)
                        .anyMatch(FlowTable.address(flow.to())::equals)
                    ? FlowTable.Kind.HOST
                    : FlowTable.Kind.PASS;
          };
      if (trace.endpoint() != null) {
        endpoints.add(FlowTable.endpoint(trace.endpoint()));
      }
      outcomes.add(new FlowTable.Outcome(kind, Set.of(), trace.masquerade()));
    }
    if (outcomes.size() != 1) {
      return null;
    }
    var only = outcomes.iterator().next();
    return only.kind() == FlowTable.Kind.ENDPOINTS
        ? new FlowTable.Outcome(only.kind(), endpoints, only.masq())
        : new FlowTable.Outcome(only.kind(), Set.of(), false);
  }
}
