package dev.proxima.proxy.model;

/**
 * Which Services get per-Service locality counters: those annotated {@code
 * proxima.dev/observe-locality: "true"}, or all of them (still under the series cap); or none, with
 * the node's own locality counting off as well ({@code off}: the rules count nothing).
 */
public enum ObserveLocality {
  OFF,
  ANNOTATED,
  ALL;

  /** Ignores case. */
  public static ObserveLocality parse(String value) {
    for (ObserveLocality mode : values()) {
      if (mode.name().equalsIgnoreCase(value == null ? "" : value.trim())) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "observe-locality must be off, annotated or all, not \"" + value + "\"");
  }

  /** Per node and per Service port. */
  public boolean counts() {
    return this != OFF;
  }
}
