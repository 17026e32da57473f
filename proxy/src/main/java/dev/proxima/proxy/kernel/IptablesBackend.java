package dev.proxima.proxy.kernel;

import dev.proxima.proxy.model.IpFamily;

/**
 * The two iptables implementations, nf_tables-based and legacy: rules written with one are
 * invisible to the other, so Proxima must use the one the node (kubelet, the CNI plugin) uses.
 */
public enum IptablesBackend {
  NFT,
  LEGACY;

  /** As in the metric label, the log and the tools' names. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** With suffix {@code -restore}, e.g. {@code ip6tables-nft-restore}. */
  public String tool(IpFamily family, String suffix) {
    return (family == IpFamily.IPV6 ? "ip6tables-" : "iptables-") + label() + suffix;
  }

  public record Decision(IptablesBackend backend, String reason) {}

  /**
   * kube-proxy's image's choice: the backend holding kubelet's hint or canary chain, else the one
   * with more rules, nft (current distributions' default) on a tie. A null save: tools not
   * installed.
   */
  public static Decision decide(String nftSave, String legacySave) {
    if (legacySave == null && nftSave == null) {
      return new Decision(NFT, "neither backend's save tool ran; assuming nft");
    }
    if (legacySave == null) {
      return new Decision(NFT, "only the nft backend is installed");
    }
    if (nftSave == null) {
      return new Decision(LEGACY, "only the legacy backend is installed");
    }
    if (hasKubeletChain(nftSave)) {
      return new Decision(NFT, "kubelet's chains are in the nft backend");
    }
    if (hasKubeletChain(legacySave)) {
      return new Decision(LEGACY, "kubelet's chains are in the legacy backend");
    }
    long nft = rules(nftSave);
    long legacy = rules(legacySave);
    if (legacy > nft) {
      return new Decision(
          LEGACY, "the legacy backend holds more rules (" + legacy + " > " + nft + ")");
    }
    return new Decision(
        NFT, "the nft backend holds at least as many rules (" + nft + " >= " + legacy + ")");
  }

  private static boolean hasKubeletChain(String save) {
    return save.lines()
        .anyMatch(
            line ->
                line.startsWith(":KUBE-IPTABLES-HINT ")
                    || line.startsWith(":KUBE-KUBELET-CANARY "));
  }

  private static long rules(String save) {
    return save.lines().filter(line -> line.startsWith("-")).count();
  }
}
