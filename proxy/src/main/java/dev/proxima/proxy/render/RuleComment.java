package dev.proxima.proxy.render;

/**
 * The one sanitiser of rule comments, which carry names a tenant chooses. Neither tool can escape a
 * quote in a quoted string and {@code iptables-restore} reads a rule per line, so a quote or
 * newline could append rules of the tenant's choosing: all outside a safe set becomes {@code _},
 * cut short.
 */
public final class RuleComment {
  /** nft refuses longer comments. */
  public static final int NFT_MAX = 128;

  /** The kernel's limit for {@code -m comment} is 256 bytes including the terminating NUL. */
  public static final int IPTABLES_MAX = 255;

  /** What iptables comments may contain beyond names: the words and arrows of fixed texts. */
  public static final String IPTABLES_EXTRA = " ;,>[]()";

  private RuleComment() {}

  /** All but ASCII letters, digits, {@code ._/:-} and {@code extra} made {@code _}. */
  public static String sanitise(String text, String extra, int max) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), max));
    for (int i = 0; i < text.length() && out.length() < max; i++) {
      char c = text.charAt(i);
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '/'
              || c == ':'
              || c == '-'
              || (c < 0x80 && extra.indexOf(c) >= 0);
      out.append(safe ? c : '_');
    }
    return out.toString();
  }
}
