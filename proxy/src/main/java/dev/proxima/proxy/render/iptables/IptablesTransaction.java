package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One {@code iptables-restore --noflush} input as its operations in order, each naming its table,
 * so the tables' operations may interleave ({@link IptablesRestoreText} groups them).
 */
public final class IptablesTransaction {
  public sealed interface Op {
    String table();
  }

  /** An operation on one rule, in the rule's table. */
  public sealed interface RuleOp extends Op {
    IptablesRule rule();

    @Override
    default String table() {
      return rule().table();
    }
  }

  /** {@code :CHAIN - [0:0]}: creates the chain, or under {@code --noflush} empties it. */
  public record DeclareChain(String table, String chain) implements Op {}

  public record Append(IptablesRule rule) implements RuleOp {}

  public record Insert(IptablesRule rule, int position) implements RuleOp {
    public Insert {
      if (position < 1) {
        throw new IllegalArgumentException("positions start at 1, got " + position);
      }
    }
  }

  public record InsertJump(JumpRule jump) implements Op {
    @Override
    public String table() {
      return jump.table();
    }
  }

  public record Delete(IptablesRule rule) implements RuleOp {}

  public record DeleteAt(String table, String chain, int position) implements Op {
    public DeleteAt {
      if (position < 1) {
        throw new IllegalArgumentException("positions start at 1, got " + position);
      }
    }
  }

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
