package dev.proxima.model;

import java.util.Map;

/**
 * Decides from a Service's annotations whether the topology-aware "Auto" heuristic is on. Upstream
 * lets the deprecated {@code topology-aware-hints} key shadow {@code topology-mode} whenever it is
 * present, even with an empty or "Disabled" value, and enables Auto only for {@code Auto} or {@code
 * auto}.
 */
public final class TopologyMode {
  private TopologyMode() {}

  /** The annotation value that decides, or {@code null} when neither annotation is set. */
  public static String effectiveValue(Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    if (annotations.containsKey(Annotations.TOPOLOGY_AWARE_HINTS)) {
      return annotations.get(Annotations.TOPOLOGY_AWARE_HINTS);
    }
    return annotations.get(Annotations.TOPOLOGY_MODE);
  }

  /** True when the Auto heuristic decides this Service's hints (it wins over the field). */
  public static boolean autoEnabled(Map<String, String> annotations) {
    var value = effectiveValue(annotations);
    return "Auto".equals(value) || "auto".equals(value);
  }
}
