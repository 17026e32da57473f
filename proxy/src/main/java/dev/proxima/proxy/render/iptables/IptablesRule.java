package dev.proxima.proxy.render.iptables;

import java.util.Objects;

/**
 * One rule of a Proxima chain, as an object: where it goes, what it says of itself and what it
 * matches and does. Renderers build these, the assembler compares and orders them, and only {@link
 * IptablesRestoreText} turns them into text, so no code has to find the chain, the comment or the
 * target in a line again. Held for every rule of the ruleset (about 100,000 at 10,000 Services with
 * two endpoints), hence four references and no parsed argument list.
 *
 * @param comment the rule's comment as the renderer wrote it, from names a tenant chooses; null for
 *     none. Sanitised and quoted only when written ({@link IptablesRestoreText#commentText}).
 * @param spec the matches and the target after the comment ({@code -m tcp -p tcp ... -j X}), built
 *     from Proxima's own constants and validated values, or, for a rule read from the kernel
 *     ({@link #saved}), everything after the chain as {@code iptables-save} printed it; empty for
 *     none
 */
public record IptablesRule(String table, String chain, String comment, String spec) {
  public IptablesRule {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(spec, "spec");
  }

  /**
   * A rule as an {@code iptables-save} line {@code -A CHAIN rest} printed it, to delete it by that
   * text: its comment, if any, stays in {@code rest}, quoted as the tool printed it.
   */
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
