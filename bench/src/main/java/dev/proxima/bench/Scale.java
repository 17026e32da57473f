package dev.proxima.bench;

import java.util.List;

/** How big each benchmark runs: the sizes, or a smoke run that takes seconds. */
record Scale(
    boolean smoke,
    int coldServices,
    int coldRepetitions,
    List<Integer> partialServices,
    int partialChanges,
    int memoryServices,
    int memoryEndpoints,
    List<Integer> latencyServices,
    int latencySamples,
    int latencyRounds,
    int controllerServices,
    int controllerEndpoints,
    int controllerRssServices,
    int nplChanges) {

  static Scale fullRun() {
    return new Scale(
        false,
        10_000,
        3,
        List.of(1_000, 10_000),
        20,
        10_000,
        10,
        List.of(10, 10_000),
        2_000,
        3,
        5_000,
        20,
        10_000,
        100);
  }

  /**
   * The sizes with fewer repetitions, for trying a change out: one cold start, five partial
   * changes, one latency round. Its figures are not the ones the docs report.
   */
  static Scale quickRun() {
    var full = fullRun();
    return new Scale(
        false,
        full.coldServices(),
        1,
        full.partialServices(),
        5,
        full.memoryServices(),
        full.memoryEndpoints(),
        full.latencyServices(),
        full.latencySamples(),
        1,
        full.controllerServices(),
        full.controllerEndpoints(),
        full.controllerRssServices(),
        20);
  }

  static Scale smokeRun() {
    return new Scale(
        true, 200, 1, List.of(50, 200), 3, 200, 10, List.of(10, 200), 200, 1, 100, 20, 200, 5);
  }
}
