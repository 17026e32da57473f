package dev.proxima.proxy.informers;

import dev.proxima.model.Annotations;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** The few Service annotations the proxy reads; the cache keeps these and drops the rest. */
final class ProxyAnnotations {
  private static final String[] KEPT = {
    Annotations.ZONE_SPILL_OVER, Annotations.ZONE_SPILL_OVER_TOLERANCE
  };

  private ProxyAnnotations() {}

  static Map<String, String> kept(Map<String, String> annotations) {
    if (annotations == null || annotations.isEmpty()) {
      return Collections.emptyMap();
    }
    Map<String, String> kept = null;
    if (Annotations.observesLocality(annotations)) {
      kept = new HashMap<>(2);
      kept.put(Annotations.OBSERVE_LOCALITY, "true");
    }
    for (var key : KEPT) {
      var value = annotations.get(key);
      if (value != null) {
        if (kept == null) {
          kept = new HashMap<>(2);
        }
        // Parsing reads at most a few characters; a long value is kept only as far as it shows.
        kept.put(key, value.length() > 64 ? value.substring(0, 64) : value);
      }
    }
    return kept == null ? Collections.emptyMap() : Map.copyOf(kept);
  }
}
