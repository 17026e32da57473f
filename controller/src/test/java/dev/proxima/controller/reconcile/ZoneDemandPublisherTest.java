package dev.proxima.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.ZoneDemand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

class ZoneDemandPublisherTest {
  private final List<SortedMap<String, String>> written = new ArrayList<>();
  private boolean failNext;
  private final ZoneDemandPublisher publisher =
      new ZoneDemandPublisher(
          data -> {
            if (failNext) {
              failNext = false;
              throw new SliceWriter.WriteConflictException("changed", null);
            }
            written.add(data);
          });

  @Test
  void theFirstPublishWritesAndAnUnchangedDemandWritesNothing() {
    var demand = ZoneDemand.ofRatios(Map.of("a", 0.5, "b", 0.5));

    assertThat(publisher.publish(demand)).isTrue();
    assertThat(publisher.publish(ZoneDemand.ofRatios(Map.of("a", 0.5001, "b", 0.4999)))).isFalse();
    assertThat(publisher.publish(ZoneDemand.ofRatios(Map.of("a", 0.6, "b", 0.4)))).isTrue();

    assertThat(written)
        .containsExactly(
            new java.util.TreeMap<>(Map.of("a", "0.500", "b", "0.500")),
            new java.util.TreeMap<>(Map.of("a", "0.600", "b", "0.400")));
  }

  @Test
  void aFailedWriteIsRepeatedEvenForTheDemandItHadPublishedBefore() {
    var demand = ZoneDemand.ofRatios(Map.of("a", 0.5, "b", 0.5));
    publisher.publish(demand);
    failNext = true;

    assertThatThrownBy(() -> publisher.publish(ZoneDemand.ofRatios(Map.of("a", 0.6, "b", 0.4))))
        .isInstanceOf(SliceWriter.WriteConflictException.class);
    assertThat(publisher.publish(demand)).as("the stored object is no longer known").isTrue();
  }

  @Test
  void unknownDemandIsPublishedAsAnEmptyObject() {
    assertThat(publisher.publish(ZoneDemand.unknown())).isTrue();

    assertThat(written).containsExactly(new java.util.TreeMap<>());
  }
}
