package dev.proxima.controller.events;

import dev.proxima.model.ObjectKey;
import java.util.Objects;

/**
 * An Event the controller means to record on a Service. Planning code returns these instead of
 * recording them, so the live controller and the offline {@code plan} command report the same
 * Events.
 */
public record PlannedEvent(ObjectKey object, Type type, String reason, String message) {
  /** The two Event types Kubernetes knows. */
  public enum Type {
    Normal,
    Warning
  }

  public PlannedEvent {
    Objects.requireNonNull(object, "object");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }

  public static PlannedEvent warning(ObjectKey object, String reason, String message) {
    return new PlannedEvent(object, Type.Warning, reason, message);
  }

  public static PlannedEvent normal(ObjectKey object, String reason, String message) {
    return new PlannedEvent(object, Type.Normal, reason, message);
  }
}
