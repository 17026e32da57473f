package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.hinted;
import static dev.proxima.controller.hints.auto.AutoFixtures.hintsOf;
import static dev.proxima.controller.hints.auto.AutoFixtures.info;
import static dev.proxima.controller.hints.auto.AutoFixtures.ready;
import static dev.proxima.controller.hints.auto.AutoFixtures.slice;
import static dev.proxima.controller.hints.auto.AutoFixtures.unready;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class HintRemovalTest {

  @Test
  void clearsEveryHintOnSlicesToCreateAndUpdateReadyOrNot() {
    var plan =
        HintRemoval.removeHintsFromSlices(
            info(
                List.of(slice("c1", hinted(ready("10.0.0.1", "zone-a"), "zone-a"))),
                List.of(
                    slice(
                        "u1",
                        hinted(unready("10.0.0.2", "zone-a"), "zone-b"),
                        hinted(ready("10.0.0.3", "zone-a")))),
                List.of()));

    assertThat(hintsOf(plan.toCreate())).containsExactly(List.of("10.0.0.1:-"));
    assertThat(hintsOf(plan.toUpdate())).containsExactly(List.of("10.0.0.2:-", "10.0.0.3:-"));
  }

  @Test
  void movesUnchangedSlicesWithAnyHintsToTheUpdatesAsClearedCopies() {
    var withHints =
        slice("k1", ready("10.0.1.1", "zone-a"), hinted(unready("10.0.1.2", "zone-a"), "zone-a"));
    var withEmptyHints = slice("k2", hinted(ready("10.0.1.3", "zone-a")));
    var withoutHints = slice("k3", ready("10.0.1.4", "zone-a"));

    var plan =
        HintRemoval.removeHintsFromSlices(
            info(
                List.of(),
                List.of(slice("u1", ready("10.0.0.1", "zone-a"))),
                List.of(withHints, withoutHints, withEmptyHints)));

    assertThat(plan.toUpdate())
        .extracting(slice -> slice.getMetadata().getName())
        .containsExactly("u1", "k1", "k2");
    assertThat(hintsOf(plan.toUpdate()))
        .containsExactly(
            List.of("10.0.0.1:-"), List.of("10.0.1.1:-", "10.0.1.2:-"), List.of("10.0.1.3:-"));
    assertThat(plan.unchanged()).containsExactly(withoutHints);
    assertThat(plan.unchanged().get(0)).isSameAs(withoutHints);
  }

  @Test
  void neverMutatesTheSlicesItIsGiven() {
    var toCreate = slice("c1", hinted(ready("10.0.0.1", "zone-a"), "zone-a"));
    var unchanged = slice("k1", hinted(ready("10.0.1.1", "zone-a"), "zone-b"));
    var createBefore = new EndpointSliceBuilder(toCreate).build();
    var unchangedBefore = new EndpointSliceBuilder(unchanged).build();

    var plan =
        HintRemoval.removeHintsFromSlices(info(List.of(toCreate), List.of(), List.of(unchanged)));

    assertThat(toCreate).isEqualTo(createBefore);
    assertThat(unchanged).isEqualTo(unchangedBefore);
    assertThat(plan.toCreate().get(0)).isNotSameAs(toCreate);
    assertThat(plan.toUpdate().get(0)).isNotSameAs(unchanged);
  }
}
