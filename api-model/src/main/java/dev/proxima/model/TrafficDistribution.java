package dev.proxima.model;

import java.util.Objects;

/**
 * The value of a Service's {@code spec.trafficDistribution}, parsed once so both components agree
 * on what each string means.
 *
 * <p>{@code PreferClose} is the deprecated alias of {@code PreferSameZone}: it behaves identically
 * but keeps its own spelling in {@link #raw()} because upstream reports the raw value in metrics.
 * Any other non-empty string is {@link Kind#UNSUPPORTED}: kept for reporting, otherwise treated as
 * if the field were absent.
 */
public final class TrafficDistribution {
  public static final String PREFER_CLOSE = "PreferClose";
  public static final String PREFER_SAME_ZONE = "PreferSameZone";
  public static final String PREFER_SAME_NODE = "PreferSameNode";

  /** What a value asks for. */
  public enum Kind {
    ABSENT,
    PREFER_SAME_ZONE,
    PREFER_SAME_NODE,
    UNSUPPORTED
  }

  public static final TrafficDistribution ABSENT = new TrafficDistribution(Kind.ABSENT, null);

  private final Kind kind;
  private final String raw;

  private TrafficDistribution(Kind kind, String raw) {
    this.kind = kind;
    this.raw = raw;
  }

  /** Parses the field as the API server stores it; {@code null} means the field is not set. */
  public static TrafficDistribution parse(String value) {
    if (value == null) {
      return ABSENT;
    }
    return switch (value) {
      case PREFER_CLOSE, PREFER_SAME_ZONE -> new TrafficDistribution(Kind.PREFER_SAME_ZONE, value);
      case PREFER_SAME_NODE -> new TrafficDistribution(Kind.PREFER_SAME_NODE, value);
      default -> new TrafficDistribution(Kind.UNSUPPORTED, value);
    };
  }

  public Kind kind() {
    return kind;
  }

  /** The value exactly as written on the Service, or {@code null} when the field is absent. */
  public String raw() {
    return raw;
  }

  /** True for the values that produce hints: PreferClose, PreferSameZone and PreferSameNode. */
  public boolean isSupported() {
    return kind == Kind.PREFER_SAME_ZONE || kind == Kind.PREFER_SAME_NODE;
  }

  /** True when endpoints also get {@code forNodes} hints. */
  public boolean prefersSameNode() {
    return kind == Kind.PREFER_SAME_NODE;
  }

  /** True for {@code PreferClose}, which operators should replace with {@code PreferSameZone}. */
  public boolean isDeprecatedAlias() {
    return PREFER_CLOSE.equals(raw);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TrafficDistribution that
        && kind == that.kind
        && Objects.equals(raw, that.raw);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, raw);
  }

  @Override
  public String toString() {
    return raw == null ? "<absent>" : raw;
  }
}
