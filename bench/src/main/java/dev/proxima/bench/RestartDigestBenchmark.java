package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What a restart that does not plan would cost ({@code ./bench.sh --only=restart-probe}): at each
 * shape, a {@link RestartProbe} JVM writes the saved per-Service digests, then several fresh ones
 * (the proxy DaemonSet's JVM flags, cold code) each time reading that file, digesting every
 * Service's inputs and looking them up, against planning every Service as today's full sync does.
 * No kernel and no proxy process: it needs neither root nor a namespace.
 */
final class RestartDigestBenchmark {
  private final Scale scale;
  private final Path work;
  private final Path benchJar;
  private final Path proxyJar;
  private final List<Row> rows;

  RestartDigestBenchmark(Scale scale, Path work, Path benchJar, Path proxyJar, List<Row> rows) {
    this.scale = scale;
    this.work = work;
    this.benchJar = benchJar;
    this.proxyJar = proxyJar;
    this.rows = rows;
  }

  /**
   * The restart row's bound at the full size of each shape, 2 × partial sync + the proxy's own
   * verification of its marker set, as the proxy benchmarks measured them: 10,000 × 2: 2 × 8.0 ms +
   * 23.0 ms; 44,000 × 1: 102 ms; 5,000 × 50: 97 ms. Constants: this probe runs no proxy, and the
   * figures it compares move less than the machine's load moves those.
   */
  static double boundMillis(Scale.Shape shape) {
    return switch (shape.endpoints()) {
      case 1 -> 102;
      case 2 -> 39;
      default -> 97;
    };
  }

  void run() throws IOException {
    var probe = scale.restartProbe();
    for (var shape : probe.shapes()) {
      var file = work.resolve("restart-probe-" + shape.services() + "x" + shape.endpoints());
      probe(shape, "write", file, probe.changed());
      var runs = new ArrayList<Map<String, Double>>();
      for (int jvm = 0; jvm < probe.jvms(); jvm++) {
        var figures = probe(shape, "measure", file, probe.changed());
        Progress.log("restart probe " + shape.text() + ", JVM " + jvm + ": " + figures);
        runs.add(figures);
      }
      rows.add(row(shape, runs, probe.changed(), Files.size(file)));
    }
  }

  private Row row(Scale.Shape shape, List<Map<String, Double>> runs, int changed, long bytes) {
    double bound = boundMillis(shape);
    var plan = stats(runs, f -> f.get("planMs"));
    var render = stats(runs, f -> f.get("renderMs"));
    var read = stats(runs, f -> f.get("readMs"));
    var objects = stats(runs, f -> f.get("objectDigestMs"));
    var lookup = stats(runs, f -> f.get("lookupMs"));
    var misses = stats(runs, f -> f.get("missPlanMs"));
    var join = stats(runs, f -> f.get("joinMs"));
    var perObject = stats(runs, f -> f.get("perObjectUs"));
    var allAtOnce =
        stats(
            runs,
            f ->
                f.get("readMs")
                    + f.get("objectDigestMs")
                    + f.get("lookupMs")
                    + f.get("missPlanMs"));
    var asDecoded = stats(runs, f -> f.get("readMs") + f.get("lookupMs") + f.get("missPlanMs"));
    var afterRead = stats(runs, f -> f.get("lookupMs") + f.get("missPlanMs"));
    var today = stats(runs, f -> f.get("planMs") + f.get("renderMs"));
    String text =
        String.format(
            "18.1 What a restart without planning would cost (fresh JVMs with the DaemonSet's"
                + " flags; medians of %d, min–max; load %s). Today: plan %s + render and digest"
                + " %s = %s, %s the bound. Without planning: read %.1f MB of saved digests %s;"
                + " digest every object %s (%.1f µs each); compare %s; plan the %d Services"
                + " changed while down %s. Objects digested as they are decoded leave read +"
                + " compare + misses %s (%s the bound), and with the file read while the"
                + " informers list, compare + misses %s (%s). One joined digest per Service"
                + " would add %s",
            runs.size(),
            Machine.loadAverage(),
            spread(plan),
            spread(render),
            spread(today),
            Row.ratio(today.median(), bound),
            bytes / 1e6,
            spread(read),
            spread(objects),
            perObject.median(),
            spread(lookup),
            changed,
            spread(misses),
            spread(asDecoded),
            Row.ratio(asDecoded.median(), bound),
            spread(afterRead),
            Row.ratio(afterRead.median(), bound),
            spread(join));
    return Row.report(
        text,
        shape.text(),
        "digested after the sync: " + spread(allAtOnce),
        "bound " + Row.ms(bound) + " (2 × partial + verify, measured before)",
        Row.ratio(allAtOnce.median(), bound));
  }

  private static String spread(Stats stats) {
    return Row.ms(stats.median()) + " (" + Row.ms(stats.min()) + "–" + Row.ms(stats.max()) + ")";
  }

  private static Stats stats(
      List<Map<String, Double>> runs, ToDoubleFunction<Map<String, Double>> figure) {
    return new Stats(runs.stream().map(f -> figure.applyAsDouble(f)).toList());
  }

  /** One probe JVM; its figures when measuring. */
  private Map<String, Double> probe(Scale.Shape shape, String mode, Path file, int changed) {
    var deployed = DeployedJvm.manifestOnly(proxyJar);
    var command =
        deployed.harnessCommand(
            benchJar.toString(),
            RestartProbe.class,
            List.of(
                mode,
                Integer.toString(shape.services()),
                Integer.toString(shape.endpoints()),
                file.toString(),
                Integer.toString(changed)));
    var run = Sh.run(command, deployed.environment(), "").orThrow(List.of("restart probe " + mode));
    var figures = new HashMap<String, Double>();
    run.output()
        .lines()
        .filter(line -> line.startsWith("RESULT "))
        .findFirst()
        .ifPresent(
            line -> {
              for (var pair : line.substring("RESULT ".length()).split(" ")) {
                var parts = pair.split("=", 2);
                figures.put(parts[0], Double.parseDouble(parts[1]));
              }
            });
    if (mode.equals("measure") && figures.isEmpty()) {
      throw new HarnessError("the restart probe printed no RESULT line: " + run.output().strip());
    }
    return figures;
  }
}
