package dev.proxima.proxy.render;

/**
 * The one sanitiser for rule comments in both modes. Comments carry names from the API (namespaces,
 * Service and port names), which a tenant chooses; offline state files are not even validated by an
 * API server. Neither {@code nft} nor {@code iptables-restore} can escape a quote inside a quoted
 * string, and {@code iptables-restore} reads one rule per line, so a newline or a quote in a name
 * could end the comment and append rules of the tenant's choosing. Every character outside a small
 * safe set therefore becomes {@code _}, and the text is cut to the tool's limit.
 */
public final class RuleComment {
  /** nft refuses longer comments. */
  public static final int NFT_MAX = 128;

  /** The kernel's limit for {@code -m comment} is 256 bytes including the terminating NUL. */
  public static final int IPTABLES_MAX = 255;

  /** What iptables comments may contain beyond names: the words and arrows of fixed texts. */
  public static final String IPTABLES_EXTRA = " ;,>[]()";

  private RuleComment() {}

  /**
   * {@code text} with everything but ASCII letters, digits, {@code ._/:-} and the characters of
   * {@code extra} replaced by {@code _}, at most {@code max} characters long.
   */
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
