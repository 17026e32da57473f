package dev.proxima.proxy.nftables;

import java.util.Objects;

/**
 * One rule of a chain, spelled as nft reads it, which the proxy never reads back.
 *
 * @param comment sanitised on the way in ({@link NftText#comment}); null for none
 * @param mapLookup whether the expression looks up a {@code typeof} map: nft 1.0.6 types such a
 *     rule only in the transaction that declares the map, which decides where it can be loaded
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
