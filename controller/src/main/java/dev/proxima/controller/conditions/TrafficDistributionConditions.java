package dev.proxima.controller.conditions;

import dev.proxima.controller.hints.HintMode;
import dev.proxima.controller.hints.HintPlan;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.model.Annotations;
import dev.proxima.model.ServiceConditions;
import dev.proxima.model.ServiceConditions.AcceptedReason;
import dev.proxima.model.ServiceConditions.ProgrammedReason;
import dev.proxima.model.TopologyMode;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;

/**
 * The Accepted and Programmed conditions a Service should carry, from its spec, its plan and how
 * the plan's writes went. Pure: no clock (the merge stamps transition times), no I/O.
 */
public final class TrafficDistributionConditions {
  private TrafficDistributionConditions() {}

  /** True when the Service sets spec.trafficDistribution or a topology-mode annotation. */
  public static boolean asks(Service service) {
    var spec = service.getSpec();
    return (spec != null && spec.getTrafficDistribution() != null)
        || TopologyMode.effectiveValue(service.getMetadata().getAnnotations()) != null;
  }

  /**
   * The two conditions, without lastTransitionTime; empty when the Service asks for nothing, so
   * that any conditions left from before are removed.
   */
  public static List<Condition> desired(
      Service service, HintPlan plan, SliceScope scope, WriteOutcome outcome) {
    if (!asks(service)) {
      return List.of();
    }
    var generation = service.getMetadata().getGeneration();
    var accepted = accepted(service, plan.trafficDistribution());
    var programmed = programmed(plan, scope, outcome, accepted);
    return List.of(
        condition(ServiceConditions.ACCEPTED, accepted, generation),
        condition(ServiceConditions.PROGRAMMED, programmed, generation));
  }

  /** A condition's status, reason and message. */
  record Verdict(boolean status, String reason, String message) {}

  private static Verdict accepted(Service service, TrafficDistribution value) {
    var annotations = service.getMetadata().getAnnotations();
    var annotation = TopologyMode.effectiveValue(annotations);
    var annotationKey =
        annotations != null && annotations.containsKey(Annotations.TOPOLOGY_AWARE_HINTS)
            ? Annotations.TOPOLOGY_AWARE_HINTS
            : Annotations.TOPOLOGY_MODE;
    if (TopologyMode.autoEnabled(annotations)) {
      if (value.kind() != TrafficDistribution.Kind.ABSENT) {
        return new Verdict(
            false,
            AcceptedReason.OVERRIDDEN_BY_ANNOTATION,
            annotationKey
                + "="
                + annotation
                + " decides the hints; spec.trafficDistribution \""
                + value.raw()
                + "\" is ignored while it is set");
      }
      return new Verdict(
          true, AcceptedReason.ACCEPTED, annotationKey + "=" + annotation + " is implemented");
    }
    if (value.kind() == TrafficDistribution.Kind.ABSENT) {
      if (annotation.isEmpty() || "Disabled".equals(annotation)) {
        return new Verdict(
            true,
            AcceptedReason.DISABLED,
            annotationKey + "=\"" + annotation + "\" asks for no hints; any are removed");
      }
      return new Verdict(
          false,
          AcceptedReason.UNSUPPORTED_VALUE,
          annotationKey
              + "=\""
              + annotation
              + "\" is not supported (Auto or Disabled); routing stays cluster-wide");
    }
    if (value.kind() == TrafficDistribution.Kind.UNSUPPORTED) {
      return new Verdict(
          false,
          AcceptedReason.UNSUPPORTED_VALUE,
          "spec.trafficDistribution \""
              + value.raw()
              + "\" is not supported (PreferSameZone, PreferSameNode or PreferClose);"
              + " routing stays cluster-wide");
    }
    if (value.isDeprecatedAlias()) {
      return new Verdict(
          true,
          AcceptedReason.DEPRECATED_VALUE,
          "PreferClose is implemented as PreferSameZone, its new name; prefer that spelling");
    }
    return new Verdict(true, AcceptedReason.ACCEPTED, value.raw() + " is implemented");
  }

  private static Verdict programmed(
      HintPlan plan, SliceScope scope, WriteOutcome outcome, Verdict accepted) {
    if (outcome.failure().isPresent()) {
      return new Verdict(
          false,
          ProgrammedReason.WRITE_FAILING,
          "Writing EndpointSlice hints fails: " + outcome.failure().get());
    }
    if (!outcome.overwritten().isEmpty()) {
      return new Verdict(
          false,
          ProgrammedReason.HINTS_OVERWRITTEN,
          "Another writer keeps reverting the hints on "
              + String.join(", ", outcome.overwritten())
              + "; Proxima has stopped writing them for a while");
    }
    if (!plan.leftToKcm().isEmpty()) {
      return new Verdict(
          false,
          ProgrammedReason.MANAGED_BY_KUBE_CONTROLLER_MANAGER,
          "kube-controller-manager manages "
              + String.join(", ", plan.leftToKcm())
              + " and hints them itself ("
              + scope.describe()
              + "); they do not carry the planned hints yet");
    }
    if (!accepted.status() && AcceptedReason.UNSUPPORTED_VALUE.equals(accepted.reason())) {
      return new Verdict(
          false, ProgrammedReason.NOT_ACCEPTED, "No hints are planned for a value not accepted");
    }
    if (plan.shortfall().isPresent()) {
      var shortfall = plan.shortfall().get();
      return new Verdict(false, shortfall.reason(), shortfall.message());
    }
    if (plan.mode() == HintMode.NONE) {
      return new Verdict(true, ProgrammedReason.HINTS_REMOVED, "No slice carries hints");
    }
    return new Verdict(
        true, ProgrammedReason.PROGRAMMED, "Every EndpointSlice carries the planned hints");
  }

  private static Condition condition(String type, Verdict verdict, Long generation) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(verdict.status() ? "True" : "False")
        .withReason(verdict.reason())
        .withMessage(verdict.message())
        .withObservedGeneration(generation)
        .build();
  }
}
