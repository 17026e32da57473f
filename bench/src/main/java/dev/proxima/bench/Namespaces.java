package dev.proxima.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Scratch network namespaces, all named with the harness prefix and all deleted on close, so a
 * failed run leaves nothing behind. The harness itself runs in the hub namespace (see bench.sh):
 * the API server listens there, and every namespace that runs a process reaches it over a veth pair
 * whose both ends live in namespaces created here. Nothing touches the root namespace.
 */
final class Namespaces implements AutoCloseable {
  /**
   * The prefix of every namespace and link: {@code pb8}, or {@code BENCH_NETNS_PREFIX} (bench.sh
   * sets both from one variable), so a long run such as the soak can share the machine with a
   * second harness without either deleting the other's namespaces.
   */
  static final String PREFIX = prefix(System.getenv("BENCH_NETNS_PREFIX"));

  static String prefix(String configured) {
    return configured == null || configured.isBlank() ? "pb8" : configured;
  }

  private final List<String> created = new ArrayList<>();
  private int links;

  /** An empty namespace with loopback up. */
  String create(String suffix) {
    var name = PREFIX + "-" + suffix;
    Sh.run(List.of("ip", "netns", "del", name), "");
    exec(null, "ip", "netns", "add", name);
    created.add(name);
    exec(name, "ip", "link", "set", "lo", "up");
    return name;
  }

  /**
   * A veth pair between {@code from} (null: the namespace the harness runs in) and {@code to}, with
   * a /30 from 10.209.k.0; returns the two addresses, near end first.
   */
  String[] connect(String from, String to) {
    int k = ++links;
    var near = PREFIX + "h" + k;
    var far = PREFIX + "n" + k;
    String nearAddress = "10.209." + k + ".1";
    String farAddress = "10.209." + k + ".2";
    exec(from, "ip", "link", "add", near, "type", "veth", "peer", "name", far, "netns", to);
    exec(from, "ip", "addr", "add", nearAddress + "/30", "dev", near);
    exec(from, "ip", "link", "set", near, "up");
    exec(to, "ip", "addr", "add", farAddress + "/30", "dev", far);
    exec(to, "ip", "link", "set", far, "up");
    return new String[] {nearAddress, farAddress, near, far};
  }

  static void exec(String namespace, String... command) {
    if (namespace == null) {
      Sh.must("", command);
    } else {
      Sh.must("", Sh.in(namespace, command).toArray(String[]::new));
    }
  }

  void delete(String name) {
    Sh.run(List.of("ip", "netns", "del", name), "");
    created.remove(name);
  }

  @Override
  public void close() {
    for (var name : List.copyOf(created)) {
      delete(name);
    }
  }
}
