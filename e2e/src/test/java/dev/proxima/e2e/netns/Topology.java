package dev.proxima.e2e.netns;

import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the namespaces and links of a {@link Layout} and removes them again. The fabric is a
 * bridge in its own namespace; nodes route each other's pod CIDRs over it like a flat pod network,
 * and pods hang off their node's bridge. Nothing is added to the root namespace: the API server in
 * the test JVM is reached through {@link ApiRelay}.
 */
final class Topology {
  private final Layout layout;
  private final Path workDir;

  Topology(Layout layout, Path workDir) {
    this.layout = layout;
    this.workDir = workDir;
  }

  void build() {
    removeLeftovers();
    var fabric = layout.fabric();
    addNamespace(fabric);
    ip(fabric, "link", "add", layout.prefix() + "fbr", "type", "bridge");
    // The fabric's own address is where the API server relay listens for the nodes.
    ip(fabric, "addr", "add", Layout.API_ADDRESS + "/24", "dev", layout.prefix() + "fbr");
    ip(fabric, "link", "set", layout.prefix() + "fbr", "up");

    var external = layout.external();
    addNamespace(external);
    linkToFabric(external, layout.prefix() + "fx", Layout.EXTERNAL_V4, Layout.EXTERNAL_V6);

    for (var node : layout.nodes()) {
      buildNode(node);
    }
    for (var pod : layout.pods()) {
      buildPod(pod);
    }
  }

  private void buildNode(Layout.Node node) {
    var ns = node.namespace();
    addNamespace(ns);
    // Forwarding for routed pod traffic; bridge netfilter so that a Service DNAT between two pods
    // of one node sees the bridged reply and reverses it; no ICMP rate limit, so that every
    // datagram a rule rejects gets its "port unreachable", not only the first in a second.
    must(
        "ip",
        "netns",
        "exec",
        ns,
        "sysctl",
        "-qw",
        "net.ipv4.ip_forward=1",
        "net.ipv6.conf.all.forwarding=1",
        "net.bridge.bridge-nf-call-iptables=1",
        "net.bridge.bridge-nf-call-ip6tables=1",
        "net.ipv4.icmp_ratelimit=0",
        "net.ipv6.icmp.ratelimit=0");
    linkToFabric(
        ns,
        layout.prefix() + "f" + node.name().substring("node-".length()),
        node.ipv4(),
        node.ipv6());
    var bridge = layout.prefix() + "br";
    ip(ns, "link", "add", bridge, "type", "bridge");
    ip(ns, "addr", "add", node.podGatewayV4() + "/24", "dev", bridge);
    ip(ns, "addr", "add", node.podGatewayV6() + "/64", "dev", bridge, "nodad");
    ip(ns, "link", "set", bridge, "up");
    for (var other : layout.nodes()) {
      if (other.index() != node.index()) {
        ip(ns, "route", "add", "10.244." + other.index() + ".0/24", "via", other.ipv4());
        ip(ns, "-6", "route", "add", "fd06:244:0:" + other.index() + "::/64", "via", other.ipv6());
      }
    }
    // The node's own connections to Service IPs are routed before the output hook DNATs them.
    ip(ns, "route", "add", "10.96.0.0/16", "dev", bridge);
    ip(ns, "-6", "route", "add", "fd06:96::/64", "dev", bridge);
  }

  private void buildPod(Layout.Pod pod) {
    var ns = pod.namespace();
    var node = pod.node().namespace();
    addNamespace(ns);
    must(
        "ip", "link", "add", ns, "netns", node, "type", "veth", "peer", "name", "eth0", "netns",
        ns);
    ip(node, "link", "set", ns, "master", layout.prefix() + "br", "up");
    // Hairpin: a pod reaching itself through a Service leaves and re-enters the same bridge port.
    ip(node, "link", "set", ns, "type", "bridge_slave", "hairpin", "on");
    ip(ns, "addr", "add", pod.ipv4() + "/24", "dev", "eth0");
    ip(ns, "addr", "add", pod.ipv6() + "/64", "dev", "eth0", "nodad");
    ip(ns, "link", "set", "eth0", "up");
    ip(ns, "route", "add", "default", "via", pod.node().podGatewayV4());
    ip(ns, "-6", "route", "add", "default", "via", pod.node().podGatewayV6());
  }

  private void linkToFabric(String ns, String fabricEnd, String ipv4, String ipv6) {
    must(
        "ip",
        "link",
        "add",
        fabricEnd,
        "netns",
        layout.fabric(),
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        ns);
    attachToFabric(fabricEnd);
    ip(ns, "addr", "add", ipv4 + "/24", "dev", "eth0");
    ip(ns, "addr", "add", ipv6 + "/64", "dev", "eth0", "nodad");
    ip(ns, "link", "set", "eth0", "up");
  }

  private void attachToFabric(String link) {
    ip(layout.fabric(), "link", "set", link, "master", layout.prefix() + "fbr", "up");
  }

  private void addNamespace(String ns) {
    must("ip", "netns", "add", ns);
    ip(ns, "link", "set", "lo", "up");
  }

  /**
   * Kills what still runs inside the harness's namespaces (servers and their children), then
   * deletes the namespaces and the root link. Safe to call on a half-built topology.
   */
  void tearDown() {
    var failures = new ArrayList<String>();
    var existing = existingNamespaces();
    for (var ns : layout.namespaces()) {
      if (!existing.contains(ns)) {
        continue;
      }
      var pids = HostTools.run(workDir, "ip", "netns", "pids", ns).stdout().trim();
      if (!pids.isEmpty()) {
        var kill = new ArrayList<>(List.of("kill", "-9"));
        kill.addAll(List.of(pids.split("\\s+")));
        HostTools.run(workDir, null, kill);
      }
      var deleted = HostTools.run(workDir, "ip", "netns", "del", ns);
      if (deleted.exitCode() != 0) {
        failures.add(ns + ": " + deleted.stderr().trim());
      }
    }
    if (!failures.isEmpty()) {
      System.err.println("netns e2e: could not delete " + failures);
    }
  }

  /** A run killed half-way leaves its namespaces behind; the same names are reused next time. */
  private void removeLeftovers() {
    var existing = existingNamespaces();
    if (layout.namespaces().stream().anyMatch(existing::contains)) {
      System.err.println("netns e2e: removing leftovers of an earlier run");
      tearDown();
    }
  }

  private List<String> existingNamespaces() {
    return HostTools.run(workDir, "ip", "netns", "list")
        .stdout()
        .lines()
        .map(line -> line.split("\\s+")[0])
        .toList();
  }

  private void ip(String ns, String... args) {
    var command = new ArrayList<>(List.of("ip", "-n", ns));
    command.addAll(List.of(args));
    HostTools.run(workDir, null, command).assertSucceeded();
  }

  private void must(String... command) {
    HostTools.run(workDir, command).assertSucceeded();
  }
}
