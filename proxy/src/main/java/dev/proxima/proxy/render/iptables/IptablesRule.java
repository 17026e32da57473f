package dev.proxima.proxy.render.iptables;

import java.util.Objects;

/**
 * One rule of a Proxima chain, held for every rule (100,000 at 10,000 Services), hence four
 * references and no parsed arguments. {@code comment} is sanitised only when written; {@code spec}
 * of a rule read from the kernel ({@link #saved}) is all after the chain, as printed.
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
