package dev.proxima.proxy.nftables;

import java.util.List;

/**
 * One {@code nft -f} input as its operations in order, each written as it is made, so hundreds of
 * thousands of elements cost their text and no object per statement.
 */
public final class NftTransaction {
  private final String table;
  private final NftText text;
  private final StringBuilder out;

  public NftTransaction(NftText text) {
    this(text, 256);
  }

  // A full sync's text runs to megabytes: a builder that grows by doubling copies it many times.
  public NftTransaction(NftText text, int capacity) {
    this.table = text.table();
    this.text = text;
    this.out = new StringBuilder(capacity);
  }

  public NftTransaction addTable() {
    out.append("add table ").append(table).append(" { comment \"rules for proxima\" ; }\n");
    return this;
  }

  // The add makes the delete succeed whether or not the table exists.
  public NftTransaction deleteTable() {
    out.append("add table ").append(table).append("\ndelete table ").append(table).append('\n');
    return this;
  }

  public NftTransaction replaceTable() {
    addTable();
    out.append("delete table ").append(table).append('\n');
    return addTable();
  }

  /** A chain with a map of its own goes after the map. */
  public NftTransaction addChain(NftChain chain) {
    if (chain.map() != null) {
      addSet(chain.map());
    }
    out.append("add chain ").append(table).append(' ').append(text.chain(chain.name()));
    var hook = chain.hook();
    if (hook != null) {
      out.append(" { type ").append(hook.type()).append(" hook ").append(hook.hook());
      out.append(" priority ").append(hook.priority()).append(" ; }");
    }
    out.append('\n');
    return this;
  }

  public NftTransaction addRule(NftRule rule) {
    out.append("add rule ").append(table).append(' ').append(text.chain(rule.chain())).append(' ');
    out.append(text.references(rule.expression()));
    if (rule.comment() != null) {
      out.append(" comment \"").append(rule.comment()).append('"');
    }
    out.append('\n');
    return this;
  }

  public NftTransaction addSet(NftSet set) {
    out.append("add ").append(set.kind().keyword()).append(' ').append(table).append(' ');
    out.append(text.set(set.name())).append(" { ").append(set.declaration());
    if (set.comment() != null) {
      out.append(" comment \"").append(NftText.setComment(set.comment())).append("\" ;");
    }
    out.append(" }\n");
    return this;
  }

  public NftTransaction deleteCounter(String name) {
    return statement("delete counter ", name);
  }

  public NftTransaction flushChain(String chain) {
    return statement("flush chain ", text.chain(chain));
  }

  public NftTransaction deleteChain(String chain) {
    return statement("delete chain ", text.chain(chain));
  }

  public NftTransaction deleteSet(NftSet.Kind kind, String set) {
    return statement("delete " + kind.keyword() + " ", text.set(set));
  }

  private NftTransaction statement(String verb, String name) {
    out.append(verb).append(table).append(' ').append(name).append('\n');
    return this;
  }

  public NftTransaction addElements(String set, List<NftElement> elements) {
    return block("add element ", set, elements, false);
  }

  public NftTransaction deleteElements(String set, List<NftElement> elements) {
    return block("delete element ", set, elements, true);
  }

  private NftTransaction block(
      String verb, String set, List<NftElement> elements, boolean keysOnly) {
    if (elements.isEmpty()) {
      return this; // nft rejects "{ }"
    }
    out.append(verb).append(table).append(' ').append(text.set(set)).append(" {\n");
    for (int i = 0; i < elements.size(); i++) {
      out.append('\t');
      if (keysOnly) {
        elements.get(i).appendKey(out);
      } else {
        text.element(out, elements.get(i));
      }
      out.append(i + 1 < elements.size() ? ",\n" : "\n");
    }
    out.append("}\n");
    return this;
  }

  /** Adds then deletes a key of a set named as in the kernel, so the delete always finds it. */
  public NftTransaction dropKernelKey(String set, String key) {
    for (var verb : List.of("add element ", "delete element ")) {
      out.append(verb).append(table).append(' ').append(set).append(" { ").append(key);
      out.append(" }\n");
    }
    return this;
  }

  public NftTransaction addKeys(String set, List<String> keys) {
    return addElements(set, keys.stream().map(NftElement::of).toList());
  }

  public NftTransaction deleteKeys(String set, List<String> keys) {
    return deleteElements(set, keys.stream().map(NftElement::of).toList());
  }

  public NftTransaction append(NftTransaction other) {
    out.append(other.out);
    return this;
  }

  public NftTransaction appendWritten(String script) {
    out.append(script);
    return this;
  }

  public void clear() {
    out.setLength(0);
  }

  public boolean isEmpty() {
    return out.length() == 0;
  }

  public int length() {
    return out.length();
  }

  public int lines() {
    return (int) out.chars().filter(c -> c == '\n').count();
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
