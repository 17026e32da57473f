package dev.proxima.proxy.render.iptables;

import java.util.Objects;

/**
 * One rule of a Proxima chain; only {@link IptablesRestoreText} writes it as text. Held for every
 * rule (about 100,000 at 10,000 Services), hence four references and no parsed argument list.
 *
 * @param comment from names a tenant chooses, or null; sanitised only when written
 * @param spec the matches and the target after the comment, or for a rule read from the kernel
 *     ({@link #saved}) everything after the chain as {@code iptables-save} printed it
 */
public record IptablesRule(String table, String chain, String comment, String spec) {
  public IptablesRule {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(spec, "spec");
  }

  /** An {@code iptables-save} line {@code -A CHAIN rest}, to delete the rule by that text. */
  static IptablesRule saved(String table, String line) {
    int space = line.indexOf(' ', 3);
    return space < 0
        ? of(table, line.substring(3), "")
        : of(table, line.substring(3, space), line.substring(space + 1));
  }

  public static IptablesRule of(String table, String chain, String spec) {
    return new IptablesRule(table, chain, null, spec);
  }
}
