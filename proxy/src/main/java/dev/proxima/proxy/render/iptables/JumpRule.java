package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;

/**
 * A jump from a built-in chain into a Proxima chain, ensured with {@code iptables -C}, else {@code
 * -I}: {@code iptables-restore} cannot test whether a rule exists.
 */
public record JumpRule(String table, String chain, List<String> spec) {

  public String target() {
    return spec.get(spec.size() - 1);
  }

  /** {@code -t TABLE -C CHAIN spec...}: exits 0 when present. */
  public List<String> checkArgs() {
    return args("-C");
  }

  public List<String> insertArgs() {
    return args("-I");
  }

  private List<String> args(String op) {
    List<String> args = new ArrayList<>(List.of("-t", table, op, chain));
    args.addAll(spec);
    return List.copyOf(args);
  }
}
