package dev.proxima.proxy.render.iptables;

import java.util.List;

/**
 * A rendered iptables buffer and what had to be left out of it.
 *
 * @param filterAndNat the complete input for {@code iptables-restore --noflush}: {@code *filter}
 *     ... {@code COMMIT}, then {@code *nat} ... {@code COMMIT}
 * @param warnings one line per input the renderer skipped so the buffer still loads: an address
 *     that is not of the family, a port out of range, a Service port seen twice
 */
public record IptablesRendering(String filterAndNat, List<String> warnings) {
  public IptablesRendering {
    java.util.Objects.requireNonNull(filterAndNat, "filterAndNat");
    warnings = List.copyOf(warnings);
  }
}
