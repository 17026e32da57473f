package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.render.RuleComment;
import dev.proxima.proxy.render.iptables.IptablesTransaction.Append;
import dev.proxima.proxy.render.iptables.IptablesTransaction.DeclareChain;
import dev.proxima.proxy.render.iptables.IptablesTransaction.Delete;
import dev.proxima.proxy.render.iptables.IptablesTransaction.DeleteAt;
import dev.proxima.proxy.render.iptables.IptablesTransaction.DeleteChain;
import dev.proxima.proxy.render.iptables.IptablesTransaction.Insert;
import dev.proxima.proxy.render.iptables.IptablesTransaction.InsertJump;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The one writer of {@code iptables-restore} input, and of every comment through {@link
 * RuleComment}: names a tenant chooses, sanitised, can neither end their quoted string nor start a
 * rule of their own. Pure.
 */
public final class IptablesRestoreText {
  private IptablesRestoreText() {}

  /** Each table's operations as one section, tables in the order they first appear. */
  public static String of(IptablesTransaction transaction) {
    List<IptablesTransaction.Op> ops = transaction.ops();
    Set<String> tables = new LinkedHashSet<>();
    ops.forEach(op -> tables.add(op.table()));
    StringBuilder out = new StringBuilder(ops.size() * 96);
    for (String table : tables) {
      out.append('*').append(table).append('\n');
      for (IptablesTransaction.Op op : ops) {
        if (op.table().equals(table)) {
          statement(out, op);
          out.append('\n');
        }
      }
      out.append("COMMIT\n");
    }
    return out.toString();
  }

  /** {@code -A CHAIN ...}, as {@code iptables-save} prints it too. */
  public static String line(IptablesRule rule) {
    StringBuilder out = new StringBuilder("-A ").append(rule.chain());
    body(out, rule);
    return out.toString();
  }

  /** A comment's text as {@code iptables-save} prints it: sanitised, cut, stripped. */
  public static String commentText(String text) {
    return RuleComment.sanitise(text, RuleComment.IPTABLES_EXTRA, RuleComment.IPTABLES_MAX).strip();
  }

  private static void statement(StringBuilder out, IptablesTransaction.Op op) {
    if (op instanceof Append append) {
      out.append("-A ").append(append.rule().chain());
      body(out, append.rule());
    } else if (op instanceof DeclareChain declare) {
      out.append(':').append(declare.chain()).append(" - [0:0]");
    } else if (op instanceof Insert insert) {
      out.append("-I ").append(insert.rule().chain()).append(' ').append(insert.position());
      body(out, insert.rule());
    } else if (op instanceof InsertJump jump) {
      insertJump(out, jump.jump());
    } else if (op instanceof Delete delete) {
      out.append("-D ").append(delete.rule().chain());
      body(out, delete.rule());
    } else if (op instanceof DeleteAt delete) {
      out.append("-D ").append(delete.chain()).append(' ').append(delete.position());
    } else if (op instanceof DeleteChain delete) {
      out.append("-X ").append(delete.chain());
    } else {
      throw new IllegalArgumentException("unknown operation " + op);
    }
  }

  private static void body(StringBuilder out, IptablesRule rule) {
    if (rule.comment() != null) {
      out.append(" -m comment --comment ");
      quoted(out, commentText(rule.comment()));
    }
    if (!rule.spec().isEmpty()) {
      out.append(' ').append(rule.spec());
    }
  }

  /** After sanitising, the only character that needs quotes is a space; "" needs them too. */
  private static void quoted(StringBuilder out, String safe) {
    if (safe.isEmpty() || safe.indexOf(' ') >= 0) {
      out.append('"').append(safe).append('"');
    } else {
      out.append(safe);
    }
  }

  /** The argument after {@code --comment} is sanitised as any comment. */
  private static void insertJump(StringBuilder out, JumpRule jump) {
    out.append("-I ").append(jump.chain());
    List<String> spec = jump.spec();
    for (int i = 0; i < spec.size(); i++) {
      String arg = spec.get(i);
      out.append(' ');
      if (i > 0 && spec.get(i - 1).equals("--comment")) {
        quoted(out, commentText(arg));
      } else if (arg.indexOf(' ') >= 0) {
        out.append('"').append(arg).append('"');
      } else {
        out.append(arg);
      }
    }
  }
}
