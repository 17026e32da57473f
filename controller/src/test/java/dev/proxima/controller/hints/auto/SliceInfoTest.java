package dev.proxima.controller.hints.auto;

import static dev.proxima.controller.hints.auto.AutoFixtures.info;
import static dev.proxima.controller.hints.auto.AutoFixtures.sliceWithEndpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SliceInfoTest {

  /** Upstream's Test_getTotalReadyEndpoints: name, lists, ready total, all endpoints. */
  static Stream<Arguments> upstreamTotalReadyCases() {
    return Stream.of(
        Arguments.of("empty", List.of(), List.of(), List.of(), 0, 0),
        Arguments.of(
            "empty slice", List.of(sliceWithEndpoints("c1", 0, 0)), List.of(), List.of(), 0, 0),
        Arguments.of(
            "multiple slices",
            List.of(sliceWithEndpoints("c1", 15, 0), sliceWithEndpoints("c2", 8, 0)),
            List.of(),
            List.of(),
            23,
            23),
        Arguments.of(
            "slices for all",
            List.of(sliceWithEndpoints("c1", 15, 0), sliceWithEndpoints("c2", 8, 0)),
            List.of(sliceWithEndpoints("u1", 2, 0)),
            List.of(sliceWithEndpoints("k1", 100, 0), sliceWithEndpoints("k2", 90, 0)),
            215,
            215),
        Arguments.of(
            "slices for all with some unready",
            List.of(sliceWithEndpoints("c1", 15, 3), sliceWithEndpoints("c2", 5, 4)),
            List.of(sliceWithEndpoints("u1", 3, 8)),
            List.of(sliceWithEndpoints("k1", 98, 2), sliceWithEndpoints("k2", 90, 6)),
            211,
            234));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamTotalReadyCases")
  void countsReadyEndpointsAcrossAllThreeLists(
      String name,
      List<EndpointSlice> toCreate,
      List<EndpointSlice> toUpdate,
      List<EndpointSlice> unchanged,
      int expectedReady,
      int expectedAll) {
    var info = info(toCreate, toUpdate, unchanged);

    assertThat(
            Stream.of(toCreate, toUpdate, unchanged)
                .flatMap(List::stream)
                .mapToInt(slice -> slice.getEndpoints().size())
                .sum())
        .as("the fixture builds the endpoints it promises")
        .isEqualTo(expectedAll);
    assertThat(info.totalReadyEndpoints()).isEqualTo(expectedReady);
  }
}
