package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;

/** The script that deletes table {@code proxima}. */
public final class NftRenderer {
  private NftRenderer() {}

  /** Succeeds whether or not the table exists. */
  public static String cleanupScript(IpFamily family) {
    return new NftText(family).cleanup();
  }
}
