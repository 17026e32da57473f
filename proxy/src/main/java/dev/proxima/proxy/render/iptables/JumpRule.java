package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One jump from a built-in chain into a Proxima chain. {@code iptables-restore --noflush} cannot
 * test whether a rule exists, so these are ensured one by one with {@code iptables -C ... ||
 * iptables -I ...}; see {@link IptablesRenderer#jumpRules}.
 */
public record JumpRule(String table, String chain, List<String> spec) {
  public JumpRule {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(chain, "chain");
    spec = List.copyOf(spec);
  }

  public String target() {
    return spec.get(spec.size() - 1);
  }

  /** Arguments for {@code iptables}: {@code -t TABLE -C CHAIN spec...} (exit 0 when present). */
  public List<String> checkArgs() {
    return args("-C");
  }

  /** Arguments for {@code iptables}: {@code -t TABLE -I CHAIN spec...} (prepend). */
  public List<String> insertArgs() {
    return args("-I");
  }

  private List<String> args(String op) {
    List<String> args = new ArrayList<>(List.of("-t", table, op, chain));
    args.addAll(spec);
    return List.copyOf(args);
  }
}
