package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;

/** The script that deletes table {@code proxima}. */
public final class NftRenderer {
  private NftRenderer() {}

  /** Succeeds whether or not the table exists. */
  public static NftTransaction cleanup(IpFamily family) {
    return new NftTransaction(new NftText(family)).deleteTable();
  }
}
