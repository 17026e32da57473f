package dev.proxima.controller.conditions;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the merged conditions need writing, and what they carry. */
class ConditionMergeTest {
  private static final String ACCEPTED = "proxima.dev/TrafficDistributionAccepted";
  private static final Instant EARLIER = Instant.parse("2026-11-01T10:00:00Z");
  private static final Instant NOW = Instant.parse("2026-11-24T07:00:00.123Z");
  private static final Condition FOREIGN =
      new ConditionBuilder()
          .withType("example.com/Ready")
          .withStatus("True")
          .withReason("Fine")
          .withLastTransitionTime("2026-01-01T00:00:00Z")
          .build();

  private static Condition wanted(String status, String reason, String message, long generation) {
    return new ConditionBuilder()
        .withType(ACCEPTED)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(generation)
        .build();
  }

  private static Condition stored(Condition wanted, Instant since) {
    return new ConditionBuilder(wanted).withLastTransitionTime(since.toString()).build();
  }

  @Test
  void aNewConditionIsAddedAfterOtherWritersConditionsWithTheTimeInSeconds() {
    var merged =
        ConditionMerge.merge(List.of(FOREIGN), List.of(wanted("True", "Accepted", "m", 1)), NOW);

    assertThat(merged).isPresent();
    assertThat(merged.get()).hasSize(2).first().isEqualTo(FOREIGN);
    assertThat(merged.get().get(1).getLastTransitionTime()).isEqualTo("2026-11-24T07:00:00Z");
  }

  @Test
  void anUnchangedConditionNeedsNoWrite() {
    var want = wanted("True", "Accepted", "m", 1);

    assertThat(ConditionMerge.merge(List.of(FOREIGN, stored(want, EARLIER)), List.of(want), NOW))
        .isEmpty();
  }

  @Test
  void aNewMessageOrGenerationIsWrittenButKeepsTheTransitionTime() {
    var before = stored(wanted("True", "Accepted", "m", 1), EARLIER);

    var newMessage =
        ConditionMerge.merge(List.of(before), List.of(wanted("True", "Accepted", "n", 1)), NOW);
    var newGeneration =
        ConditionMerge.merge(List.of(before), List.of(wanted("True", "Accepted", "m", 2)), NOW);

    assertThat(newMessage.orElseThrow().get(0).getLastTransitionTime())
        .isEqualTo(EARLIER.toString());
    assertThat(newGeneration.orElseThrow().get(0).getObservedGeneration()).isEqualTo(2L);
    assertThat(newGeneration.orElseThrow().get(0).getLastTransitionTime())
        .isEqualTo(EARLIER.toString());
  }

  @Test
  void aStatusFlipMovesTheTransitionTime() {
    var before = stored(wanted("True", "Accepted", "m", 1), EARLIER);

    var merged =
        ConditionMerge.merge(
            List.of(before), List.of(wanted("False", "UnsupportedValue", "m", 2)), NOW);

    assertThat(merged.orElseThrow().get(0).getLastTransitionTime())
        .isEqualTo("2026-11-24T07:00:00Z");
  }

  @Test
  void nothingWantedRemovesOnlyProximasConditions() {
    var merged =
        ConditionMerge.merge(
            List.of(stored(wanted("True", "Accepted", "m", 1), EARLIER), FOREIGN), List.of(), NOW);

    assertThat(merged.orElseThrow()).containsExactly(FOREIGN);
  }

  @Test
  void nothingWantedAndNothingStoredNeedsNoWrite() {
    assertThat(ConditionMerge.merge(null, List.of(), NOW)).isEmpty();
    assertThat(ConditionMerge.merge(List.of(FOREIGN), List.of(), NOW)).isEmpty();
  }
}
