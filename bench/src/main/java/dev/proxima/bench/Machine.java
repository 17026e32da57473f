package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the figures were measured on, and whether the kernel benchmarks can run here at all. */
final class Machine {
  private Machine() {}

  static String describe() {
    var cpu = "unknown";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
              .filter(l -> l.startsWith("model name"))
              .findFirst()
              .map(l -> l.substring(l.indexOf(':') + 1).strip())
              .orElse("unknown");
    } catch (IOException e) {
      // left unknown
    }
    return "- CPUs: "
        + Runtime.getRuntime().availableProcessors()
        + " × "
        + cpu
        + "\n"
        + "- kernel: "
        + firstLine(List.of("uname", "-r"))
        + "\n"
        + "- JDK: "
        + System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.version")
        + "\n"
        + "- nft: "
        + firstLine(List.of("nft", "--version"))
        + "; iptables: "
        + firstLine(List.of("iptables", "--version"))
        + "\n"
        + "- load average before the run: "
        + loadAverage()
        + "\n";
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String firstLine(List<String> command) {
    try {
      var run = Sh.run(command, "");
      return run.output().lines().findFirst().orElse("?").strip();
    } catch (HarnessError e) {
      return "not installed";
    }
  }

  /**
   * Null when the kernel benchmarks can run: as root, with nft and ip, inside the harness's own
   * namespace (bench.sh puts it there), so nothing is ever created in the root namespace.
   */
  static String kernelBenchmarksUnavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "needs root";
    }
    for (var tool : List.of("nft", "ip", "iptables-restore")) {
      if (Sh.run(List.of("sh", "-c", "command -v " + tool), "").exitCode() != 0) {
        return "needs " + tool;
      }
    }
    var here =
        Sh.run(List.of("ip", "netns", "identify", Long.toString(ProcessHandle.current().pid())), "")
            .output()
            .strip();
    if (!here.startsWith(Namespaces.PREFIX + "-")) {
      return "must run inside the harness namespace: use ./bench.sh";
    }
    return null;
  }
}
