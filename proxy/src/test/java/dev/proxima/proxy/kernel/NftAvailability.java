package dev.proxima.proxy.kernel;

import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether tests can use the real nft: it must be installed and the tests must run as root. */
public final class NftAvailability {
  private NftAvailability() {}

  public static boolean canCheck() {
    return nftInstalled() && HostTools.isRoot();
  }

  /** Why the nft-backed tests are skipped, for the assumption message. */
  public static String reason() {
    if (!nftInstalled()) {
      return "nft is not installed (apt-get install nftables, or run ./test.sh as root)";
    }
    return HostTools.isRoot() ? "available" : "nft needs root (run ./test.sh as root)";
  }

  static boolean nftInstalled() {
    // sudo and minimal CI shells often leave /usr/sbin off PATH, where distributions install nft.
    return HostTools.onPath("nft").isPresent()
        || Files.isExecutable(Path.of("/usr/sbin/nft"))
        || Files.isExecutable(Path.of("/usr/bin/nft"));
  }
}
