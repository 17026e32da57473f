package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.RuleComment;

/**
 * The serializer, with {@link NftTransaction}: the one place nft text is produced from the table's
 * objects ({@link NftChain}, {@link NftRule}, {@link NftSet}, {@link NftElement}). Every script and
 * transaction the proxy loads (full render, in-place full sync, cold batches, partial sync, Service
 * CIDRs, stale cleanup) is an {@link NftTransaction}, its statements written in order; this class
 * spells what they share (the family's table, an element, a comment), so the fake and the kernel
 * see one format. Names are Proxima's own; comments are sanitised here ({@link #comment}), so no
 * value a tenant chose can end a quoted string. Nothing reads this text back.
 */
final class NftText {
  private final String table;

  /**
   * @param family whose table {@code proxima} the statements address
   */
  NftText(IpFamily family) {
    this.table = NftSyntax.family(family) + " " + NftNames.TABLE;
  }

  /**
   * A comment nft can read: a quoted nft string cannot escape anything and ends at the next {@code
   * "}, so anything outside {@code [A-Za-z0-9._/:-]} becomes {@code _}, and the text is cut to
   * nft's limit. Returns {@code text} itself when it is clean already, so elements keep sharing
   * their port's comment string.
   */
  static String comment(String text) {
    var clean = RuleComment.sanitise(text, "", RuleComment.NFT_MAX);
    return clean.equals(text) ? text : clean;
  }

  /**
   * A fixed comment of a set or map (our own words, spaces and commas included) with what could end
   * the quoted string or the line, a quote, a backslash or a control character, made {@code _}.
   */
  static String setComment(String text) {
    var out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c == '"' || c == '\\' || c < 0x20 || c == 0x7f ? '_' : c);
    }
    return out.toString();
  }

  /** {@code ip proxima}: the family and table every statement names. */
  String table() {
    return table;
  }

  /** Deletes the table, whether or not it exists. */
  String cleanup() {
    return "add table " + table + "\ndelete table " + table + "\n";
  }

  /** An element as it stands in a block: key, comment, then the value. */
  static void element(StringBuilder out, NftElement element) {
    element.appendKey(out);
    if (element.comment() != null) {
      out.append(" comment \"").append(element.comment()).append('"');
    }
    if (element.hasValue()) {
      out.append(" : ");
      element.appendValue(out);
    }
  }

  /** The characters {@link #element} writes, to size a script before writing it. */
  static int length(NftElement element) {
    int length = element.keyLength();
    if (element.comment() != null) {
      length += 11 + element.comment().length();
    }
    if (element.hasValue()) {
      length += 3 + element.valueLength();
    }
    return length;
  }
}
