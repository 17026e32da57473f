package dev.proxima.e2e.netns;

import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the suite needs from the machine. Missing pieces are reported in one message that says how
 * to get them; the suite is then skipped, or fails when PROXIMA_E2E_REQUIRED=true (as in CI), so it
 * can never pass there without having run.
 */
final class HostRequirements {
  private static final Map<String, String> TOOLS = new LinkedHashMap<>();

  static {
    TOOLS.put("ip", "iproute2");
    TOOLS.put("nft", "nftables");
    TOOLS.put("iptables", "iptables");
    TOOLS.put("conntrack", "conntrack");
    TOOLS.put("socat", "socat");
    TOOLS.put("timeout", "coreutils");
  }

  private HostRequirements() {}

  /** Empty when the suite can run, otherwise what is missing and how to run it. */
  static List<String> missing() {
    var missing = new ArrayList<String>();
    if (!HostTools.isRoot()) {
      missing.add("root (it creates network namespaces)");
    }
    TOOLS.forEach(
        (tool, pkg) -> {
          if (HostTools.onPath(tool).isEmpty() && !Files.isExecutable(Path.of("/usr/sbin", tool))) {
            missing.add(tool + " (apt-get install " + pkg + ")");
          }
        });
    if (!Files.exists(Path.of("/proc/sys/net/bridge/bridge-nf-call-iptables"))) {
      // Pod-to-pod Service traffic on one node's bridge needs netfilter to see bridged replies.
      missing.add("bridge netfilter (modprobe br_netfilter)");
    }
    for (var jar :
        List.of(
            JavaProcesses.jar(
                "proxima.controller.jar", "../controller/target/proxima-controller.jar"),
            JavaProcesses.jar("proxima.proxy.jar", "../proxy/target/proxima-proxy.jar"))) {
      if (!Files.isRegularFile(jar)) {
        missing.add(jar + " (run through the reactor: ./mvnw verify -pl e2e -am)");
      }
    }
    return missing;
  }

  /** {@link #missing()} plus what running the images needs; build.sh reports its own needs. */
  static List<String> missingForContainers() {
    var missing = missing();
    for (var tool : List.of("podman", "runc", "kubectl", "openssl", "debootstrap")) {
      if (HostTools.onPath(tool).isEmpty() && !Files.isExecutable(Path.of("/usr/sbin", tool))) {
        missing.add(
            tool
                + " (apt-get install "
                + (tool.equals("kubectl") ? "kubernetes-client" : tool)
                + ")");
      }
    }
    return missing;
  }

  static String explanation(List<String> missing) {
    return "The network-namespace e2e suite cannot run here; missing: "
        + String.join(", ", missing)
        + ". Run it as root with the tools installed: sudo ./test.sh (installs them), or just this"
        + " suite: sudo ./mvnw -B verify -pl e2e -am -Dtest=NONE"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dit.test='*NetnsIT'"
        + " -Dfailsafe.failIfNoSpecifiedTests=false (see docs/testing.md).";
  }

  static boolean required() {
    return "true".equalsIgnoreCase(System.getenv("PROXIMA_E2E_REQUIRED"));
  }
}
