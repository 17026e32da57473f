package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;

/**
 * The script that deletes table {@code proxima}; the table's layout is described in this package's
 * documentation, and {@link RulesetAssembler} writes it.
 */
public final class NftRenderer {
  private NftRenderer() {}

  /** Deletes table {@code proxima} of {@code family}; succeeds whether or not it exists. */
  public static NftTransaction cleanup(IpFamily family) {
    return new NftTransaction(new NftText(family)).deleteTable();
  }
}
