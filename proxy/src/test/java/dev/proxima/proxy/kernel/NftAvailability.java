package dev.proxima.proxy.kernel;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether tests can use the real nft: it must be installed and the tests must run as root. */
public final class NftAvailability {
  private NftAvailability() {}

  public static boolean canCheck() {
    return nftInstalled() && isRoot();
  }

  /** Why the nft-backed tests are skipped, for the assumption message. */
  public static String reason() {
    if (!nftInstalled()) {
      return "nft is not installed (apt-get install nftables, or run ./test.sh as root)";
    }
    return isRoot() ? "available" : "nft needs root (run ./test.sh as root)";
  }

  static boolean nftInstalled() {
    for (var dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, "nft"))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin/nft"));
  }

  static boolean isRoot() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(line -> line.startsWith("Uid:"))
          .anyMatch(line -> line.split("\\s+")[1].equals("0"));
    } catch (Exception unknown) {
      return false;
    }
  }
}
