package dev.proxima.bench;

import java.util.List;

/** How big each benchmark runs: the full sizes, or a smoke run that takes seconds. */
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
    int nplChanges,
    int restartRounds,
    Extreme extreme,
    Soak soak) {

  /** A cluster shape: Services × endpoints each (one slice per Service, at most 100 endpoints). */
  record Shape(int services, int endpoints) {
    String text() {
      return services + " svc × " + endpoints + " ep";
    }
  }

  /**
   * The extreme shapes, the Service count of the same-run partial-sync baseline, and the partial
   * changes per shape, and how many cold starts and restarts each shape's rows take their median
   * and spread from; the controller runs at the shape with one endpoint per Service.
   */
  record Extreme(List<Shape> shapes, int baselineServices, int changes, int rounds) {}

  /**
   * The soak: cluster size, minutes of churn, endpoint replacements per second, and one Service
   * created and one deleted every {@code serviceEverySeconds}.
   */
  record Soak(
      int services, double minutes, double endpointChangesPerSecond, double serviceEverySeconds) {
    Soak withMinutes(double newMinutes) {
      return new Soak(services, newMinutes, endpointChangesPerSecond, serviceEverySeconds);
    }
  }

  /** Only the extreme shape written as {@code <services>x<endpoints>}, e.g. 44000x1. */
  Scale withExtremeShape(String text) {
    var parts = text.split("x");
    if (parts.length != 2) {
      throw new IllegalArgumentException("a shape is <services>x<endpoints>, not " + text);
    }
    var shape = new Shape(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    return with(
        new Extreme(
            List.of(shape), extreme.baselineServices(), extreme.changes(), extreme.rounds()),
        soak);
  }

  Scale withSoakMinutes(double minutes) {
    return with(extreme, soak.withMinutes(minutes));
  }

  private Scale with(Extreme newExtreme, Soak newSoak) {
    return new Scale(
        smoke,
        coldServices,
        coldRepetitions,
        partialServices,
        partialChanges,
        memoryServices,
        memoryEndpoints,
        latencyServices,
        latencySamples,
        latencyRounds,
        controllerServices,
        controllerEndpoints,
        controllerRssServices,
        nplChanges,
        restartRounds,
        newExtreme,
        newSoak);
  }

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
        100,
        3,
        new Extreme(List.of(new Shape(44_000, 1), new Shape(5_000, 50)), 1_000, 10, 3),
        new Soak(10_000, 30, 10, 10));
  }

  /**
   * The full sizes with fewer repetitions, for trying a change out: one cold start, five partial
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
        20,
        1,
        new Extreme(full.extreme().shapes(), full.extreme().baselineServices(), 5, 1),
        full.soak().withMinutes(5));
  }

  static Scale smokeRun() {
    return new Scale(
        true,
        200,
        1,
        List.of(50, 200),
        3,
        200,
        10,
        List.of(10, 200),
        200,
        1,
        100,
        20,
        200,
        5,
        2,
        new Extreme(List.of(new Shape(440, 1), new Shape(50, 50)), 40, 3, 2),
        new Soak(200, 1, 5, 10));
  }
}
