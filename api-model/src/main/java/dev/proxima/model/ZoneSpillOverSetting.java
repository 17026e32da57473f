package dev.proxima.model;

import java.math.BigDecimal;
import java.util.Map;

/**
 * A Service's zone spill-over annotations, parsed once at the edge so that the controller and the
 * proxy agree on what they mean. Annotation values are untrusted: anything unexpected turns the
 * feature off and says why, it never throws.
 *
 * @param state whether the Service asks for spill-over, and whether it asks correctly
 * @param tolerance the factor over the mean an endpoint's share may reach; meaningful when {@link
 *     State#ON}
 * @param problem why the annotations were refused, naming the annotation and its value; empty
 *     unless {@link State#INVALID}
 */
public record ZoneSpillOverSetting(State state, double tolerance, String problem) {
  /** Used when the tolerance annotation is absent. */
  public static final double DEFAULT_TOLERANCE = 1.25;

  /**
   * Accepted tolerances. Below 1 no split keeps every endpoint at or under the mean; far above it
   * the feature would never act, so such a value is more likely a typo than a wish.
   */
  public static final double MIN_TOLERANCE = 1.0;

  public static final double MAX_TOLERANCE = 10.0;

  // Long enough for any sensible decimal, short enough to keep parsing of untrusted text cheap.
  private static final int MAX_VALUE_LENGTH = 16;

  /** What the annotations ask for. */
  public enum State {
    /** The opt-in annotation is absent or {@code "false"}. */
    OFF,
    /** Opted in with a valid tolerance. */
    ON,
    /** An annotation holds a value that cannot be meant; the feature stays off. */
    INVALID
  }

  private static final ZoneSpillOverSetting OFF_SETTING =
      new ZoneSpillOverSetting(State.OFF, DEFAULT_TOLERANCE, "");

  /** Reads the two annotations; {@code null} annotations mean none. */
  public static ZoneSpillOverSetting parse(Map<String, String> annotations) {
    if (annotations == null) {
      return OFF_SETTING;
    }
    var enabled = annotations.get(Annotations.ZONE_SPILL_OVER);
    if (enabled == null || "false".equals(enabled)) {
      return OFF_SETTING;
    }
    if (!"true".equals(enabled)) {
      return invalid(Annotations.ZONE_SPILL_OVER, enabled, "must be \"true\" or \"false\"");
    }
    var tolerance = annotations.get(Annotations.ZONE_SPILL_OVER_TOLERANCE);
    if (tolerance == null) {
      return new ZoneSpillOverSetting(State.ON, DEFAULT_TOLERANCE, "");
    }
    var reason =
        "must be a decimal number from " + MIN_TOLERANCE + " to " + MAX_TOLERANCE + ", like 1.25";
    if (tolerance.length() > MAX_VALUE_LENGTH) {
      return invalid(Annotations.ZONE_SPILL_OVER_TOLERANCE, tolerance, reason);
    }
    BigDecimal value;
    try {
      value = new BigDecimal(tolerance.trim());
    } catch (NumberFormatException notANumber) {
      return invalid(Annotations.ZONE_SPILL_OVER_TOLERANCE, tolerance, reason);
    }
    if (value.compareTo(BigDecimal.valueOf(MIN_TOLERANCE)) < 0
        || value.compareTo(BigDecimal.valueOf(MAX_TOLERANCE)) > 0) {
      return invalid(Annotations.ZONE_SPILL_OVER_TOLERANCE, tolerance, reason);
    }
    return new ZoneSpillOverSetting(State.ON, value.doubleValue(), "");
  }

  private static ZoneSpillOverSetting invalid(String annotation, String value, String reason) {
    var shown =
        value.length() > MAX_VALUE_LENGTH ? value.substring(0, MAX_VALUE_LENGTH) + "…" : value;
    return new ZoneSpillOverSetting(
        State.INVALID,
        DEFAULT_TOLERANCE,
        annotation + "=\"" + shown + "\" " + reason + "; zone spill-over is off");
  }
}
