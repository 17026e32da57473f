package dev.proxima.proxy.nftables;

import java.util.Objects;

/**
 * One rule of a chain; {@code mapLookup}: it looks up a {@code typeof} map, which nft 1.0.6 types
 * only in the transaction declaring the map, so that decides where it can load.
 */
public record NftRule(String chain, String expression, String comment, boolean mapLookup) {
  public NftRule {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(expression, "expression");
    if (comment != null) {
      comment = NftText.comment(comment);
    }
  }

  public static NftRule of(String chain, String expression) {
    return new NftRule(chain, expression, null, false);
  }
}
