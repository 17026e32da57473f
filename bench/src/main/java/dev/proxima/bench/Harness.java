package dev.proxima.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * What every process benchmark needs from the run: its scale, the scratch namespaces, the work
 * directory, the packaged jars and the table the rows go to.
 */
record Harness(
    Scale scale,
    Namespaces namespaces,
    Path work,
    Path proxyJar,
    Path controllerJar,
    List<Row> rows) {

  /** The controller benchmarks of this run, for starting the packaged controller. */
  ControllerBenchmarks controllers() {
    return new ControllerBenchmarks(scale, namespaces, work, controllerJar, proxyJar, rows);
  }
}
