package dev.proxima.controller.conditions;

import dev.proxima.model.ServiceConditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Folds Proxima's desired conditions into a Service's status conditions, leaving every other
 * writer's conditions where they are. Says "no change" unless status, reason, message or
 * observedGeneration of one of Proxima's conditions changes (or one appears or goes), so a resync
 * writes nothing; lastTransitionTime moves only when the status flips.
 */
public final class ConditionMerge {
  private static final Set<String> OURS =
      Set.of(
          ServiceConditions.ACCEPTED,
          ServiceConditions.PROGRAMMED,
          ServiceConditions.ZONE_SPILL_OVER);

  private ConditionMerge() {}

  /**
   * @param current the Service's status conditions as stored (may be null)
   * @param desired Proxima's conditions without lastTransitionTime; empty removes them
   * @return the complete new list of conditions, or empty when nothing needs writing
   */
  public static Optional<List<Condition>> merge(
      List<Condition> current, List<Condition> desired, Instant now) {
    var existing = current == null ? List.<Condition>of() : current;
    var result = new ArrayList<Condition>();
    var placed = new java.util.HashSet<String>();
    boolean changed = false;
    for (var condition : existing) {
      if (!OURS.contains(condition.getType())) {
        result.add(condition);
        continue;
      }
      if (!placed.add(condition.getType())) {
        changed = true; // a duplicate of ours: drop it
        continue;
      }
      var wanted = find(desired, condition.getType());
      if (wanted.isEmpty()) {
        changed = true;
        continue;
      }
      var merged = stamped(wanted.get(), condition, now);
      changed |= !same(merged, condition);
      result.add(merged);
    }
    for (var wanted : desired) {
      if (placed.add(wanted.getType())) {
        result.add(stamped(wanted, null, now));
        changed = true;
      }
    }
    return changed ? Optional.of(List.copyOf(result)) : Optional.empty();
  }

  /** Proxima's conditions among {@code conditions}, for plan output and tests. */
  public static List<Condition> ours(List<Condition> conditions) {
    return conditions == null
        ? List.of()
        : conditions.stream().filter(c -> OURS.contains(c.getType())).toList();
  }

  private static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private static Condition stamped(Condition wanted, Condition previous, Instant now) {
    var transition =
        previous != null
                && Objects.equals(previous.getStatus(), wanted.getStatus())
                && previous.getLastTransitionTime() != null
            ? previous.getLastTransitionTime()
            : now.truncatedTo(ChronoUnit.SECONDS).toString();
    return new ConditionBuilder(wanted).withLastTransitionTime(transition).build();
  }

  private static boolean same(Condition a, Condition b) {
    return Objects.equals(a.getStatus(), b.getStatus())
        && Objects.equals(a.getReason(), b.getReason())
        && Objects.equals(a.getMessage(), b.getMessage())
        && Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
        && Objects.equals(a.getLastTransitionTime(), b.getLastTransitionTime());
  }
}
