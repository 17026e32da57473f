package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import java.util.List;

/**
 * The one place nft statements are spelled: every script and transaction the proxy loads (full
 * render, in-place full sync, partial sync, Service CIDRs, cleanup) is built from these, so the
 * fake and the kernel see one format. Names are Proxima's own and comments are sanitised by {@link
 * RenderPass#comment}; nothing here quotes or escapes.
 */
final class NftText {
  /** Where a {@code comment "..."} part of an element begins. */
  private static final String COMMENT_START = " comment \"";

  private final String table;

  /**
   * @param family whose table {@code proxima} the statements address
   */
  NftText(IpFamily family) {
    this.table = NftSyntax.family(family) + " " + NftNames.TABLE;
  }

  /** {@code ip proxima}: the family and table every statement names. */
  String table() {
    return table;
  }

  /** The table created, emptied and created again: what a script that replaces it starts with. */
  void replaceTable(StringBuilder out) {
    out.append("add table ").append(table).append(" { comment \"rules for proxima\" ; }\n");
    out.append("delete table ").append(table).append('\n');
    out.append("add table ").append(table).append(" { comment \"rules for proxima\" ; }\n");
  }

  /** Deletes the table, whether or not it exists. */
  String cleanup() {
    return "add table " + table + "\ndelete table " + table + "\n";
  }

  /** {@code add chain}; {@code spec} is empty for a regular chain, else starts with a space. */
  String addChain(String name, String spec) {
    return "add chain " + table + " " + name + spec;
  }

  /** {@code add counter}: a named counter, which an existing one of that name keeps its count. */
  String addCounter(String name) {
    return "add counter " + table + " " + name;
  }

  void deleteCounter(StringBuilder out, String name) {
    out.append("delete counter ").append(table).append(' ').append(name).append('\n');
  }

  String addRule(String chain, String rule) {
    return "add rule " + table + " " + chain + " " + rule;
  }

  /** {@code add set|map}; {@code declaration} names the object {@code %NAME%}. */
  String addSet(String name, String declaration) {
    return "add " + declaration.replace("%NAME%", table + " " + name);
  }

  void flushChain(StringBuilder out, String chain) {
    out.append("flush chain ").append(table).append(' ').append(chain).append('\n');
  }

  void deleteChain(StringBuilder out, String chain) {
    out.append("delete chain ").append(table).append(' ').append(chain).append('\n');
  }

  /** {@code delete set} or {@code delete map}. */
  void deleteSet(StringBuilder out, String kind, String set) {
    out.append("delete ").append(kind).append(' ').append(table).append(' ').append(set);
    out.append('\n');
  }

  /** {@code add element} of these elements, one per line; nothing when there are none. */
  void addElements(StringBuilder out, String set, List<String> elements) {
    block(out, "add element ", set, elements);
  }

  /** {@code delete element} of these keys (see {@link #key}); nothing when there are none. */
  void deleteElements(StringBuilder out, String set, List<String> keys) {
    block(out, "delete element ", set, keys);
  }

  private void block(StringBuilder out, String verb, String set, List<String> elements) {
    if (elements.isEmpty()) {
      return; // nft rejects "{ }"
    }
    out.append(verb).append(table).append(' ').append(set).append(" {\n");
    for (int i = 0; i < elements.size(); i++) {
      out.append('\t').append(elements.get(i)).append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    out.append("}\n");
  }

  /** What identifies an element for deletion: its key, without value or comment. */
  static String key(String element, boolean map) {
    int value = map ? element.indexOf(" : ") : -1;
    var key = value >= 0 ? element.substring(0, value) : element;
    return withoutComments(key).strip();
  }

  /**
   * {@code text} without its {@code comment "..."} parts. This runs for every map element of a full
   * sync, so it searches with indexOf instead of a regular expression, and returns {@code text}
   * itself when there is no comment.
   */
  private static String withoutComments(String text) {
    int start = text.indexOf(COMMENT_START);
    if (start < 0) {
      return text;
    }
    var out = new StringBuilder(text.length());
    int from = 0;
    while (start >= 0) {
      int close = text.indexOf('"', start + COMMENT_START.length());
      if (close < 0) {
        break; // an unclosed quote is not a comment, and nothing after it can be either
      }
      out.append(text, from, start);
      from = close + 1;
      start = text.indexOf(COMMENT_START, from);
    }
    return out.append(text, from, text.length()).toString();
  }
}
