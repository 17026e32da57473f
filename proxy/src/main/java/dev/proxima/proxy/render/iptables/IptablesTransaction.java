package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One {@code iptables-restore --noflush} input as objects: the operations in the order they were
 * added, each naming its table. {@link IptablesRestoreText} writes each table's operations as one
 * section ending in {@code COMMIT}, tables in the order they first appear, so operations of several
 * tables may be added in any interleaving. Mutable while it is being built; not thread-safe.
 */
public final class IptablesTransaction {
  public sealed interface Op {
    String table();
  }

  /** {@code :CHAIN - [0:0]}: creates the chain, or under {@code --noflush} empties it. */
  public record DeclareChain(String table, String chain) implements Op {}

  public record Append(IptablesRule rule) implements Op {
    @Override
    public String table() {
      return rule.table();
    }
  }

  /** {@code -I CHAIN position ...}: inserts the rule so that it becomes rule {@code position}. */
  public record Insert(IptablesRule rule, int position) implements Op {
    public Insert {
      if (position < 1) {
        throw new IllegalArgumentException("positions start at 1, got " + position);
      }
    }

    @Override
    public String table() {
      return rule.table();
    }
  }

  /** {@code -I CHAIN spec...}: prepends a jump from a built-in chain. */
  public record InsertJump(JumpRule jump) implements Op {
    @Override
    public String table() {
      return jump.table();
    }
  }

  /** {@code -D CHAIN ...}: deletes the first rule equal to this one. */
  public record Delete(IptablesRule rule) implements Op {
    @Override
    public String table() {
      return rule.table();
    }
  }

  /** {@code -D CHAIN position}: deletes the rule at that position. */
  public record DeleteAt(String table, String chain, int position) implements Op {
    public DeleteAt {
      if (position < 1) {
        throw new IllegalArgumentException("positions start at 1, got " + position);
      }
    }
  }

  /** {@code -X CHAIN}: deletes the chain, which must be empty and no rule's target. */
  public record DeleteChain(String table, String chain) implements Op {}

  private final List<Op> ops = new ArrayList<>();

  public List<Op> ops() {
    return java.util.Collections.unmodifiableList(ops);
  }

  public boolean isEmpty() {
    return ops.isEmpty();
  }

  /** Statements: lines besides table headers and COMMITs. */
  public int size() {
    return ops.size();
  }

  public IptablesTransaction add(Op op) {
    ops.add(Objects.requireNonNull(op, "op"));
    return this;
  }

  public IptablesTransaction declare(String table, String chain) {
    return add(new DeclareChain(table, chain));
  }

  public IptablesTransaction append(IptablesRule rule) {
    return add(new Append(rule));
  }

  public IptablesTransaction insert(IptablesRule rule, int position) {
    return add(new Insert(rule, position));
  }

  public IptablesTransaction insertJump(JumpRule jump) {
    return add(new InsertJump(jump));
  }

  public IptablesTransaction delete(IptablesRule rule) {
    return add(new Delete(rule));
  }

  public IptablesTransaction deleteAt(String table, String chain, int position) {
    return add(new DeleteAt(table, chain, position));
  }

  public IptablesTransaction deleteChain(String table, String chain) {
    return add(new DeleteChain(table, chain));
  }

  public String text() {
    return IptablesRestoreText.of(this);
  }
}
