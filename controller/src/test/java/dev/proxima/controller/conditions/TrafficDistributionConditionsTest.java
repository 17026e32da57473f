package dev.proxima.controller.conditions;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.service;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.controller.hints.ServerVersion;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.model.Annotations;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The conditions planned for each kind of Service, slice state and write outcome. */
class TrafficDistributionConditionsTest {
  private static final Endpoint ZONED = ready("10.0.0.1", "zone-a", "n1");
  private static final Endpoint ZONELESS = ready("10.0.0.2", null, "n2");
  private static final SliceScope AUTO_133 =
      new SliceScope(SliceScope.Slices.AUTO, Optional.of(new ServerVersion(1, 33)));

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "a supported value whose slices are hinted",
            service("svc", "PreferSameZone"),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "True Accepted",
            "True Programmed"),
        Arguments.of(
            "the deprecated PreferClose",
            service("svc", "PreferClose"),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "True DeprecatedValue",
            "True Programmed"),
        Arguments.of(
            "an unsupported value",
            service("svc", "PreferSameRack"),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "False UnsupportedValue",
            "False NotAccepted"),
        Arguments.of(
            "a value overridden by topology-mode Auto in a cluster without zones",
            service("svc", "PreferSameNode", Map.of(Annotations.TOPOLOGY_MODE, "Auto")),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "False OverriddenByAnnotation",
            "False NodesReadyInOneZoneOnly"),
        Arguments.of(
            "topology-mode Disabled alone",
            service("svc", null, Map.of(Annotations.TOPOLOGY_MODE, "Disabled")),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "True Disabled",
            "True HintsRemoved"),
        Arguments.of(
            "an unknown topology-mode value",
            service("svc", null, Map.of(Annotations.TOPOLOGY_MODE, "Sometimes")),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "False UnsupportedValue",
            "False NotAccepted"),
        Arguments.of(
            "endpoints without a zone",
            service("svc", "PreferSameZone"),
            ZONELESS,
            SliceScope.ALL,
            WriteOutcome.WRITTEN,
            "True Accepted",
            "False NoZoneSpecified"),
        Arguments.of(
            "a failing write",
            service("svc", "PreferSameZone"),
            ZONED,
            SliceScope.ALL,
            WriteOutcome.failed("500 still broken"),
            "True Accepted",
            "False WriteFailing"),
        Arguments.of(
            "a slice another writer keeps reverting",
            service("svc", "PreferSameZone"),
            ZONED,
            SliceScope.ALL,
            new WriteOutcome(List.of("s1"), Optional.empty()),
            "True Accepted",
            "False HintsOverwritten"),
        Arguments.of(
            "a KCM slice left to a KCM that implements PreferClose (1.33) and lacks its hints",
            service("svc", "PreferClose"),
            ZONED,
            AUTO_133,
            WriteOutcome.WRITTEN,
            "True DeprecatedValue",
            "False ManagedByKubeControllerManager"),
        Arguments.of(
            "a KCM slice that 1.33's KCM does not hint for PreferSameZone",
            service("svc", "PreferSameZone"),
            ZONED,
            AUTO_133,
            WriteOutcome.WRITTEN,
            "True Accepted",
            "True Programmed"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void plansTheConditionsForTheServiceAtItsGeneration(
      String description,
      Service service,
      Endpoint endpoint,
      SliceScope scope,
      WriteOutcome outcome,
      String accepted,
      String programmed) {
    service.getMetadata().setGeneration(7L);
    var plan =
        new HintPlanner(new dev.proxima.controller.hints.auto.AutoHintCache(), scope)
            .plan(service, List.of(slice("s1", "svc", endpoint)));

    var conditions = TrafficDistributionConditions.desired(service, plan, scope, outcome);

    assertThat(conditions)
        .extracting(Condition::getType)
        .containsExactly(
            "proxima.dev/TrafficDistributionAccepted", "proxima.dev/TrafficDistributionProgrammed");
    assertThat(summary(conditions.get(0))).isEqualTo(accepted);
    assertThat(summary(conditions.get(1))).isEqualTo(programmed);
    assertThat(conditions).allSatisfy(c -> assertThat(c.getMessage()).isNotBlank());
    assertThat(conditions).extracting(Condition::getObservedGeneration).containsOnly(7L);
  }

  @org.junit.jupiter.api.Test
  void aServiceThatAsksForNothingGetsNoConditions() {
    var service = service("svc", null);
    var plan = new HintPlanner().plan(service, List.of(slice("s1", "svc", ZONED)));

    assertThat(
            TrafficDistributionConditions.desired(
                service, plan, SliceScope.ALL, WriteOutcome.WRITTEN))
        .isEmpty();
  }

  private static String summary(Condition condition) {
    return condition.getStatus() + " " + condition.getReason();
  }
}
