package dev.proxima.proxy.render.iptables;

import java.util.List;

/** {@code warnings}: one line per input left out so the buffer still loads. */
public record IptablesRendering(String filterAndNat, List<String> warnings) {}
