package dev.proxima.e2e.netns;

import java.util.List;
import java.util.stream.Stream;

/**
 * Names and addresses of the test cluster, fixed so that failures read the same every run: four
 * nodes in three zones (a1 and a2 in zone-a, b1 in zone-b, c1 in zone-c), two server pods and one
 * client pod per node, an external client on the fabric. Every namespace and link name starts with
 * the prefix, so a run never touches anything it did not create.
 */
record Layout(String prefix) {
  static final String FABRIC_V4 = "10.206.0";
  static final String FABRIC_V6 = "fd06:206::";

  /** The fabric namespace's address, where nodes reach the API server (through a relay). */
  static final String API_ADDRESS = FABRIC_V4 + ".1";

  static final int API_PORT = 6443;
  static final String EXTERNAL_V4 = FABRIC_V4 + ".100";
  static final String EXTERNAL_V6 = FABRIC_V6 + "100";
  static final String CLUSTER_CIDRS = "10.244.0.0/16,fd06:244::/48";
  static final int SERVER_PORT = 8080;

  /** A node: its namespace, Kubernetes name, zone, allocatable CPU and addresses. */
  record Node(String namespace, String name, String zone, int cpu, int index) {
    String ipv4() {
      return FABRIC_V4 + "." + (10 + index);
    }

    String ipv6() {
      return FABRIC_V6 + (10 + index);
    }

    String podGatewayV4() {
      return "10.244." + index + ".1";
    }

    String podGatewayV6() {
      return "fd06:244:0:" + index + "::1";
    }

    /** The node's pod ranges, as the node IPAM controller writes them into spec.podCIDRs. */
    List<String> podCidrs() {
      return List.of("10.244." + index + ".0/24", "fd06:244:0:" + index + "::/64");
    }
  }

  /** A pod namespace on a node; servers answer on {@link #SERVER_PORT}, clients only connect. */
  record Pod(String namespace, String name, Node node, int host) {
    String ipv4() {
      return "10.244." + node.index() + "." + host;
    }

    String ipv6() {
      return "fd06:244:0:" + node.index() + "::" + host;
    }

    boolean isServer() {
      return host < 100;
    }
  }

  /** Zone CPU is equal (4 per zone), so Auto hints give every zone its own endpoints. */
  List<Node> nodes() {
    return List.of(
        node("a1", "zone-a", 2, 1),
        node("a2", "zone-a", 2, 2),
        node("b1", "zone-b", 4, 3),
        node("c1", "zone-c", 4, 4));
  }

  private Node node(String name, String zone, int cpu, int index) {
    return new Node(prefix + name, "node-" + name, zone, cpu, index);
  }

  Node node(String name) {
    return nodes().stream()
        .filter(n -> n.name().equals("node-" + name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + name));
  }

  /** Pods named after their node: a1s1 and a1s2 serve, a1c is the node's client. */
  List<Pod> pods() {
    return nodes().stream()
        .flatMap(
            n -> {
              var shortName = n.name().substring("node-".length());
              return Stream.of(
                  new Pod(n.namespace() + "s1", shortName + "s1", n, 11),
                  new Pod(n.namespace() + "s2", shortName + "s2", n, 12),
                  new Pod(n.namespace() + "c", shortName + "c", n, 100));
            })
        .toList();
  }

  Pod pod(String name) {
    return pods().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no pod " + name));
  }

  Pod client(Node node) {
    return pod(node.name().substring("node-".length()) + "c");
  }

  String fabric() {
    return prefix + "fab";
  }

  String external() {
    return prefix + "ext";
  }

  /** Every namespace the harness creates, in creation order. */
  List<String> namespaces() {
    return Stream.of(
            Stream.of(fabric(), external()),
            nodes().stream().map(Node::namespace),
            pods().stream().map(Pod::namespace))
        .flatMap(s -> s)
        .toList();
  }
}
