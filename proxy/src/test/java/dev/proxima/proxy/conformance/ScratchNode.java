package dev.proxima.proxy.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A scratch node made of network namespaces, with every kind of client upstream's cases send from:
 *
 * <pre>
 *   external (203.0.113.x, 2600:5200::1) ── vx ──┐       ┌── vp ── pods (pod clients)
 *                                   node (rules; 192.168.0.2, 192.168.1.2, 192.168.99.11,
 *                                         2001:db8::1, 2001:db8:1::2)
 *   sink (next hop) ─────────────────────── vs ──┘       └── ve ── endpoints (every endpoint IP)
 * </pre>
 *
 * The node carries the node addresses and forwards; the endpoints namespace holds every endpoint
 * address of the current scenario and answers with the address a flow reached and the source it
 * saw; the node answers for itself ("host") when a flow to one of its addresses is not proxied; the
 * sink is the node's default route and owns the Service, load-balancer and external IPs, so a flow
 * the rules leave alone is answered there ("pass") instead of vanishing like a drop. Pod and
 * endpoint namespaces hang off routed veths (the node side is 169.254.1.1 and fd00:ffff::1), as
 * with Calico. A source that is none of these (a load-balancer IP, for upstream's SNAT case) is the
 * external namespace's placeholder address rewritten by an SNAT rule there.
 */
final class ScratchNode implements AutoCloseable {
  private static final String GATEWAY = "169.254.1.1";
  private static final String GATEWAY6 = "fd00:ffff::1";
  private static final String SINK = "169.254.2.2";
  private static final String SINK6 = "fd00:ffff::2";
  private static final String PLACEHOLDER = "203.0.113.200";

  /** Upstream's non-cluster client addresses: 203.0.113.0/24, and 2600:5200::1 in IPv6 cases. */
  private static final List<String> EXTERNAL_CLIENTS = List.of("203.0.113.0/24", "2600:5200::/64");

  private static final int CONNECT_TIMEOUT_MS = 400;

  private final Path work;
  private final List<String> nodeAddresses;
  private final List<String> podNetwork;
  private final String node;
  private final String pods;
  private final String endpoints;
  private final String external;
  private final String sink;
  private final List<String> namespaces = new ArrayList<>();
  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final Set<String> podAddresses = new LinkedHashSet<>();
  private final Set<String> endpointAddresses = new LinkedHashSet<>();
  private final List<String> externalSources;

  /** One agent process in one namespace, spoken to line by line. */
  private record Agent(Process process, PrintStream in, BufferedReader out) {
    synchronized String ask(String command) throws IOException {
      in.println(command);
      var answer = out.readLine();
      if (answer == null) {
        throw new IOException("the agent exited; asked: " + command);
      }
      return answer;
    }
  }

  /** What came back from a probe, classified when it can be. */
  record Observation(FlowTable.Outcome outcome, String raw) {}

  private ScratchNode(Path work, FlowTable table) {
    this.work = work;
    this.nodeAddresses = table.node().addresses();
    this.podNetwork = table.settings().clusterCidrs();
    var prefix = "pxf" + UUID.randomUUID().toString().substring(0, 4);
    node = prefix + "-node";
    pods = prefix + "-pods";
    endpoints = prefix + "-eps";
    external = prefix + "-ext";
    sink = prefix + "-sink";
    externalSources = new ArrayList<>();
    for (var scenario : table.scenarios()) {
      for (var flow : scenario.cases()) {
        if (EXTERNAL_CLIENTS.stream().anyMatch(range -> Cidr.contains(range, flow.from()))
            && !externalSources.contains(flow.from())) {
          externalSources.add(flow.from());
        }
      }
    }
    externalSources.add(PLACEHOLDER);
  }

  /** Builds the namespaces and starts the agents; closes what it made if that fails. */
  static ScratchNode build(Path work, FlowTable table) throws IOException {
    var scratch = new ScratchNode(work, table);
    try {
      scratch.wire(table);
      scratch.startAgents();
      return scratch;
    } catch (IOException | RuntimeException | AssertionError failure) {
      scratch.close();
      throw failure;
    }
  }

  private void wire(FlowTable table) {
    for (var namespace : List.of(node, pods, endpoints, external, sink)) {
      must("ip", "netns", "add", namespace);
      namespaces.add(namespace);
      must("ip", "-n", namespace, "link", "set", "lo", "up");
      sysctl(
          namespace,
          "net.ipv4.conf.all.rp_filter=0",
          "net.ipv4.conf.default.rp_filter=0",
          "net.ipv6.conf.all.accept_dad=0",
          "net.ipv6.conf.default.accept_dad=0");
    }
    // Every reject must produce its ICMP error, however many the suite sends.
    sysctl(
        node,
        "net.ipv4.ip_forward=1",
        "net.ipv6.conf.all.forwarding=1",
        "net.ipv4.icmp_ratelimit=0",
        "net.ipv6.icmp.ratelimit=0");
    link("vx", external);
    link("vp", pods);
    link("ve", endpoints);
    link("vs", sink);

    for (var address : nodeAddresses) {
      addAddress(node, address, "vx");
    }
    for (var range : EXTERNAL_CLIENTS) {
      must("ip", "-n", node, "route", "add", range, "dev", "vx");
    }
    for (var address : externalSources) {
      addAddress(external, address, "eth0");
    }
    // The external clients reach everything through the node's first address of each family.
    for (var ipv6 : List.of(false, true)) {
      var first =
          nodeAddresses.stream().filter(a -> FlowTable.isIpv6(a) == ipv6).findFirst().orElseThrow();
      must("ip", "-n", external, "route", "add", first, "dev", "eth0");
      must("ip", "-n", external, "route", "add", ipv6 ? "::/0" : "0.0.0.0/0", "via", first);
    }
    nft(
        external,
        "add table ip pxf-snat\n"
            + "add chain ip pxf-snat post { type nat hook postrouting priority 100 ; }\n");

    for (var side : List.of("vp", "ve", "vs")) {
      addAddress(node, GATEWAY, side);
      addAddress(node, GATEWAY6, side);
    }
    // A fixed address keeps the routes: the kernel drops a link's routes with its last address,
    // and the scenarios' addresses come and go.
    must("ip", "-n", pods, "addr", "add", "169.254.3.3/32", "dev", "eth0");
    must("ip", "-n", endpoints, "addr", "add", "169.254.4.4/32", "dev", "eth0");
    for (var namespace : List.of(pods, endpoints, sink)) {
      must("ip", "-n", namespace, "route", "add", GATEWAY, "dev", "eth0");
      must("ip", "-n", namespace, "route", "add", "0.0.0.0/0", "via", GATEWAY);
      must("ip", "-n", namespace, "route", "add", GATEWAY6, "dev", "eth0");
      must("ip", "-n", namespace, "route", "add", "::/0", "via", GATEWAY6);
    }
    addAddress(sink, SINK, "eth0");
    addAddress(sink, SINK6, "eth0");
    must("ip", "-n", node, "route", "add", "0.0.0.0/0", "via", SINK, "dev", "vs", "onlink");
    must("ip", "-n", node, "route", "add", "::/0", "via", SINK6, "dev", "vs", "onlink");
    // The sink owns every destination the cases use that is not the node's, so an unproxied flow
    // gets an answer there.
    var owned = new LinkedHashSet<String>();
    owned.add("172.30.0.0/16");
    for (var scenario : table.scenarios()) {
      for (var flow : scenario.cases()) {
        if (!nodeAddresses.contains(flow.to()) && !Cidr.contains("172.30.0.0/16", flow.to())) {
          owned.add(FlowTable.hostRoute(flow.to()));
        }
      }
    }
    for (var range : owned) {
      must("ip", "-n", sink, "route", "add", "local", range, "dev", "lo");
    }
    // Replies to a client that is a load-balancer IP (upstream's SNAT case) go back to the
    // external namespace, not to the sink, which owns that IP as a destination.
    must("ip", "-n", node, "rule", "add", "iif", "ve", "lookup", "100", "pref", "100");
    for (var scenario : table.scenarios()) {
      for (var flow : scenario.cases()) {
        if (place(flow.from(), scenario) == Place.SNAT) {
          must(
              "ip",
              "-n",
              node,
              "route",
              "replace",
              FlowTable.hostRoute(flow.from()),
              "via",
              externalSources.get(0),
              "dev",
              "vx",
              "onlink",
              "table",
              "100");
        }
      }
    }
  }

  private void link(String nodeSide, String namespace) {
    must(
        "ip", "-n", node, "link", "add", nodeSide, "type", "veth", "peer", "name", "eth0", "netns",
        namespace);
    must("ip", "-n", node, "link", "set", nodeSide, "up");
    must("ip", "-n", namespace, "link", "set", "eth0", "up");
  }

  private void startAgents() throws IOException {
    var classes =
        Path.of(NamespaceAgent.class.getProtectionDomain().getCodeSource().getLocation().getPath())
            .toString();
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var roles =
        Map.of(
            node, "host", pods, "pod", endpoints, "endpoint", external, "external", sink, "sink");
    for (var namespace : List.of(node, pods, endpoints, external, sink)) {
      var command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, java));
      // The agent runs for the whole suite; a quick start matters more than peak speed.
      command.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp", classes));
      command.addAll(List.of(NamespaceAgent.class.getName(), roles.get(namespace)));
      var process =
          new ProcessBuilder(command)
              .redirectError(work.resolve(namespace + ".log").toFile())
              .start();
      agents.put(
          namespace,
          new Agent(
              process,
              new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8),
              new BufferedReader(
                  new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))));
    }
    for (var namespace : agents.keySet()) {
      // The first answer also says the JVM is up.
      assertThat(agents.get(namespace).ask("listen tcp 9")).as(namespace).isEqualTo("ok");
    }
  }

  /** Gives the pod and endpoint namespaces this scenario's addresses and starts its servers. */
  void prepare(FlowTable.Scenario scenario) throws IOException {
    var wantedEndpoints = scenario.endpointAddresses();
    var wantedPods = new LinkedHashSet<String>();
    for (var flow : scenario.cases()) {
      if (place(flow.from(), scenario) == Place.POD) {
        wantedPods.add(flow.from());
      }
    }
    // Remove first: an address can be a pod client in one scenario and an endpoint in another.
    retarget(endpoints, "ve", endpointAddresses, wantedEndpoints, true);
    retarget(pods, "vp", podAddresses, wantedPods, true);
    retarget(endpoints, "ve", endpointAddresses, wantedEndpoints, false);
    retarget(pods, "vp", podAddresses, wantedPods, false);
    for (var port : scenario.endpointPorts()) {
      var words = port.split(" ");
      if (words[0].equals("tcp")) {
        expectOk(endpoints, "listen tcp " + words[1]);
      } else {
        for (var address : wantedEndpoints) {
          expectOk(endpoints, "listen udp " + address + " " + words[1]);
        }
      }
    }
  }

  private void retarget(
      String namespace, String nodeSide, Set<String> current, Set<String> wanted, boolean remove) {
    if (remove) {
      for (var address : List.copyOf(current)) {
        if (!wanted.contains(address)) {
          must("ip", "-n", node, "route", "del", FlowTable.hostRoute(address), "dev", nodeSide);
          must("ip", "-n", namespace, "addr", "del", FlowTable.hostRoute(address), "dev", "eth0");
          current.remove(address);
        }
      }
      return;
    }
    for (var address : wanted) {
      if (current.add(address)) {
        addAddress(namespace, address, "eth0");
        must("ip", "-n", node, "route", "add", FlowTable.hostRoute(address), "dev", nodeSide);
      }
    }
  }

  /** Replaces whatever rules the node has with this ruleset, loaded with the mode's own tool. */
  void load(ProxyMode mode, boolean ipv6, String ruleset) throws IOException {
    // iptables here is the nf_tables variant or legacy: clear both ways so modes never mix.
    must("ip", "netns", "exec", node, "nft", "flush", "ruleset");
    if (HostTools.onPath("iptables-legacy").isPresent()
        || Files.isExecutable(Path.of("/usr/sbin/iptables-legacy"))) {
      for (var table : List.of("filter", "nat")) {
        HostTools.run(work, "ip", "netns", "exec", node, "iptables-legacy", "-t", table, "-F");
        HostTools.run(work, "ip", "netns", "exec", node, "iptables-legacy", "-t", table, "-X");
      }
    }
    if (mode == ProxyMode.nftables) {
      nft(node, ruleset);
    } else {
      var restore = ipv6 ? "ip6tables-restore" : "iptables-restore";
      HostTools.inNamespace(work, node, ruleset, List.of(restore, "--noflush", "-w", "5"))
          .assertSucceeded();
    }
  }

  /** The node's ruleset as the kernel holds it, for failure messages. */
  String listRules(ProxyMode mode, boolean ipv6) {
    var command =
        mode == ProxyMode.nftables
            ? List.of("nft", "list", "ruleset")
            : List.of(ipv6 ? "ip6tables-save" : "iptables-save");
    return HostTools.inNamespace(work, node, null, command).stdout();
  }

  enum Place {
    NODE,
    POD,
    ENDPOINT,
    EXTERNAL,
    SNAT
  }

  /** Where a flow from this source starts. */
  Place place(String source, FlowTable.Scenario scenario) {
    if (nodeAddresses.contains(source)) {
      return Place.NODE;
    }
    if (scenario.endpointAddresses().contains(source)) {
      return Place.ENDPOINT;
    }
    if (podNetwork.stream().anyMatch(cidr -> Cidr.contains(cidr, source))) {
      return Place.POD;
    }
    return externalSources.contains(source) ? Place.EXTERNAL : Place.SNAT;
  }

  /** Sends the flow {@code attempts} times and says what became of it. */
  Observation probe(FlowTable.Scenario scenario, FlowTable.FlowCase flow, int attempts)
      throws IOException {
    var protocol = flow.protocol();
    // Whoever may answer a flow the rules leave alone listens first.
    if (protocol.equals("tcp")) {
      expectOk(sink, "listen tcp " + flow.port());
      if (nodeAddresses.contains(flow.to())) {
        expectOk(node, "listen tcp " + flow.port());
      }
    } else {
      expectOk(sink, "listen udp " + flow.to() + " " + flow.port());
      if (nodeAddresses.contains(flow.to())) {
        expectOk(node, "listen udp " + flow.to() + " " + flow.port());
      }
    }
    var place = place(flow.from(), scenario);
    var namespace =
        switch (place) {
          case NODE -> node;
          case POD -> pods;
          case ENDPOINT -> endpoints;
          case EXTERNAL, SNAT -> external;
        };
    var source = flow.from();
    if (place == Place.SNAT) {
      nft(
          external,
          "flush chain ip pxf-snat post\n"
              + "add rule ip pxf-snat post ip saddr "
              + PLACEHOLDER
              + " snat to "
              + flow.from()
              + "\n");
      source = PLACEHOLDER;
    }
    var raw =
        agents
            .get(namespace)
            .ask(
                String.join(
                    " ",
                    "probe",
                    protocol,
                    source,
                    flow.to(),
                    String.valueOf(flow.port()),
                    String.valueOf(attempts),
                    String.valueOf(CONNECT_TIMEOUT_MS)));
    return new Observation(classify(raw, flow.from()), raw);
  }

  /**
   * Reads the agent's answer: every attempt answered by the same kind of server, or one attempt
   * that got no answer. Anything else (some answered, then one did not; endpoints that saw both the
   * client and another source) is null: no outcome the table can name.
   */
  static FlowTable.Outcome classify(String raw, String from) {
    var attempts = raw.split("\\|");
    if (attempts.length == 1 && !attempts[0].contains(" ")) {
      return switch (attempts[0]) {
        case "timeout", "silent" -> new FlowTable.Outcome(FlowTable.Kind.DROP, Set.of(), false);
        case "refused", "unreachable" ->
            new FlowTable.Outcome(FlowTable.Kind.REJECT, Set.of(), false);
        default -> null;
      };
    }
    var roles = new LinkedHashSet<String>();
    var reached = new LinkedHashSet<String>();
    var seen = new LinkedHashSet<Boolean>();
    for (var attempt : attempts) {
      var words = attempt.split(" ");
      if (words.length != 3) {
        return null;
      }
      roles.add(words[0]);
      reached.add(FlowTable.endpoint(words[1]));
      seen.add(FlowTable.address(words[2]).equals(FlowTable.address(from)));
    }
    if (roles.size() != 1) {
      return null;
    }
    return switch (roles.iterator().next()) {
      case "endpoint" ->
          seen.size() == 1
              ? new FlowTable.Outcome(FlowTable.Kind.ENDPOINTS, reached, !seen.contains(true))
              : null;
      case "host" -> new FlowTable.Outcome(FlowTable.Kind.HOST, Set.of(), false);
      case "sink" -> new FlowTable.Outcome(FlowTable.Kind.PASS, Set.of(), false);
      default -> null;
    };
  }

  /** Without duplicate address detection, so an IPv6 address works at once. */
  private void addAddress(String namespace, String address, String device) {
    var command =
        new ArrayList<>(
            List.of(
                "ip", "-n", namespace, "addr", "add", FlowTable.hostRoute(address), "dev", device));
    if (FlowTable.isIpv6(address)) {
      command.add("nodad");
    }
    must(command.toArray(String[]::new));
  }

  private void expectOk(String namespace, String command) throws IOException {
    assertThat(agents.get(namespace).ask(command)).as("%s: %s", namespace, command).isEqualTo("ok");
  }

  private void nft(String namespace, String script) {
    HostTools.inNamespace(work, namespace, script, List.of("nft", "-f", "-")).assertSucceeded();
  }

  private void sysctl(String namespace, String... settings) {
    var command = new ArrayList<>(List.of("sysctl", "-qw"));
    command.addAll(List.of(settings));
    HostTools.inNamespace(work, namespace, null, command).assertSucceeded();
  }

  private void must(String... command) {
    HostTools.run(work, command).assertSucceeded();
  }

  @Override
  public void close() {
    for (var agent : agents.values()) {
      agent.in().close();
      agent.process().destroy();
    }
    for (var agent : agents.values()) {
      try {
        if (!agent.process().waitFor(5, TimeUnit.SECONDS)) {
          agent.process().destroyForcibly();
        }
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    for (var namespace : namespaces) {
      HostTools.run(work, "ip", "netns", "del", namespace);
    }
  }
}
