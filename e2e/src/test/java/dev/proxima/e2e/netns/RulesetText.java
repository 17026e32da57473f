package dev.proxima.e2e.netns;

/** Reads a node's rules, as {@code nft list ruleset} or {@code iptables-save} prints them. */
final class RulesetText {
  private RulesetText() {}

  /**
   * Whether the rules name {@code address} itself, not an address it is the start or end of ({@code
   * 10.96.0.2} in {@code 10.96.0.21}).
   */
  static boolean mentions(String rules, String address) {
    boolean v6 = address.contains(":");
    for (int at = rules.indexOf(address); at >= 0; at = rules.indexOf(address, at + 1)) {
      int end = at + address.length();
      if ((at == 0 || !continuesAddress(rules.charAt(at - 1), v6))
          && (end == rules.length() || !continuesAddress(rules.charAt(end), v6))) {
        return true;
      }
    }
    return false;
  }

  /** A character that would make a longer address; after an IPv4 address a colon starts a port. */
  private static boolean continuesAddress(char c, boolean v6) {
    return v6
        ? Character.digit(c, 16) >= 0 || c == '.' || c == ':'
        : Character.isDigit(c) || c == '.';
  }
}
