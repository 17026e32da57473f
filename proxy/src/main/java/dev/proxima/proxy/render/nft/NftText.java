package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.RuleComment;
import java.util.List;

/**
 * The serializer: the one place nft text is produced from the table's objects ({@link NftChain},
 * {@link NftRule}, {@link NftSet}, {@link NftElement}). Every script and transaction the proxy
 * loads (full render, in-place full sync, cold batches, partial sync, Service CIDRs, stale cleanup,
 * cleanup) is a sequence of its operations, written in order into one builder, so the fake and the
 * kernel see one format. Names are Proxima's own; comments are sanitised here ({@link #comment}),
 * so no value a tenant chose can end a quoted string. Nothing reads this text back.
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

  /** {@code add table}: creates the table, or leaves the one there. */
  void addTable(StringBuilder out) {
    out.append("add table ").append(table).append(" { comment \"rules for proxima\" ; }\n");
  }

  /** The table created, emptied and created again: what a script that replaces it starts with. */
  void replaceTable(StringBuilder out) {
    addTable(out);
    out.append("delete table ").append(table).append('\n');
    addTable(out);
  }

  /** Deletes the table, whether or not it exists. */
  String cleanup() {
    return "add table " + table + "\ndelete table " + table + "\n";
  }

  /** {@code add chain}, one line. */
  void addChain(StringBuilder out, NftChain chain) {
    out.append("add chain ").append(table).append(' ').append(chain.name());
    var hook = chain.hook();
    if (hook != null) {
      out.append(" { type ").append(hook.type()).append(" hook ").append(hook.hook());
      out.append(" priority ").append(hook.priority()).append(" ; }");
    }
    out.append('\n');
  }

  /** {@code add chain} of a regular chain, without line end. */
  String addChain(String name, String spec) {
    return "add chain " + table + " " + name + spec;
  }

  /** {@code add rule}, one line. */
  void addRule(StringBuilder out, NftRule rule) {
    out.append("add rule ").append(table).append(' ').append(rule.chain()).append(' ');
    out.append(rule.expression());
    if (rule.comment() != null) {
      out.append(" comment \"").append(rule.comment()).append('"');
    }
    out.append('\n');
  }

  /** {@code add rule} of {@code rule} in {@code chain}, without line end. */
  String addRule(String chain, String rule) {
    var out = new StringBuilder();
    addRule(out, NftRule.of(chain, rule));
    out.setLength(out.length() - 1);
    return out.toString();
  }

  /** {@code add set} or {@code add map}, one line. */
  void addSet(StringBuilder out, NftSet set) {
    out.append("add ").append(set.kind().keyword()).append(' ').append(table).append(' ');
    out.append(set.name()).append(" { ").append(set.declaration());
    if (set.comment() != null) {
      out.append(" comment \"").append(setComment(set.comment())).append("\" ;");
    }
    out.append(" }\n");
  }

  /** {@code add counter}: a named counter, which an existing one of that name keeps its count. */
  void addCounter(StringBuilder out, String name) {
    out.append("add counter ").append(table).append(' ').append(name).append('\n');
  }

  void deleteCounter(StringBuilder out, String name) {
    out.append("delete counter ").append(table).append(' ').append(name).append('\n');
  }

  void flushChain(StringBuilder out, String chain) {
    out.append("flush chain ").append(table).append(' ').append(chain).append('\n');
  }

  void deleteChain(StringBuilder out, String chain) {
    out.append("delete chain ").append(table).append(' ').append(chain).append('\n');
  }

  /** {@code delete set} or {@code delete map}. */
  void deleteSet(StringBuilder out, NftSet.Kind kind, String set) {
    out.append("delete ").append(kind.keyword()).append(' ').append(table).append(' ');
    out.append(set).append('\n');
  }

  /** {@code add element} of these elements, one per line; nothing when there are none. */
  void addElements(StringBuilder out, String set, List<NftElement> elements) {
    if (elements.isEmpty()) {
      return; // nft rejects "{ }"
    }
    open(out, "add element ", set);
    for (int i = 0; i < elements.size(); i++) {
      out.append('\t');
      element(out, elements.get(i));
      out.append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    out.append("}\n");
  }

  /** {@code delete element} of these elements, by key; nothing when there are none. */
  void deleteElements(StringBuilder out, String set, List<NftElement> elements) {
    if (elements.isEmpty()) {
      return;
    }
    open(out, "delete element ", set);
    for (int i = 0; i < elements.size(); i++) {
      out.append('\t');
      elements.get(i).appendKey(out);
      out.append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    out.append("}\n");
  }

  /** {@code add element} of set elements given by their keys alone. */
  void addKeys(StringBuilder out, String set, List<String> keys) {
    keys(out, "add element ", set, keys);
  }

  /** {@code delete element} of these keys. */
  void deleteKeys(StringBuilder out, String set, List<String> keys) {
    keys(out, "delete element ", set, keys);
  }

  private void keys(StringBuilder out, String verb, String set, List<String> keys) {
    if (keys.isEmpty()) {
      return;
    }
    open(out, verb, set);
    for (int i = 0; i < keys.size(); i++) {
      out.append('\t').append(keys.get(i)).append(i + 1 < keys.size() ? ",\n" : "\n");
    }
    out.append("}\n");
  }

  private void open(StringBuilder out, String verb, String set) {
    out.append(verb).append(table).append(' ').append(set).append(" {\n");
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
