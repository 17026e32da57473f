package dev.proxima.proxy.render.iptables;

import java.util.List;

/**
 * @param filterAndNat the input for {@code iptables-restore --noflush}
 * @param warnings one line per input left out so the buffer still loads
 */
public record IptablesRendering(String filterAndNat, List<String> warnings) {}
