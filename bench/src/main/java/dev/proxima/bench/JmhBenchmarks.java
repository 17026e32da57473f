package dev.proxima.bench;

import dev.proxima.bench.jmh.HintPlanningBenchmark;
import dev.proxima.bench.jmh.RenderBenchmark;
import dev.proxima.bench.jmh.SelectionBenchmark;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Runs the JMH benchmarks of the pure parts and turns their scores into table rows. */
final class JmhBenchmarks {
  private JmhBenchmarks() {}

  static void run(Scale scale, List<Row> rows) throws RunnerException {
    var options =
        new OptionsBuilder()
            .include(RenderBenchmark.class.getName())
            .include(SelectionBenchmark.class.getName())
            .include(HintPlanningBenchmark.class.getName())
            .verbosity(VerboseMode.SILENT)
            .shouldDoGC(true)
            .jvmArgsAppend("-Xmx1g");
    if (scale.smoke()) {
      // In-process and one short iteration: enough to prove every benchmark still runs.
      options
          .forks(0)
          .warmupIterations(1)
          .warmupTime(TimeValue.milliseconds(100))
          .measurementIterations(1)
          .measurementTime(TimeValue.milliseconds(200))
          .param("services", "200");
    } else {
      options
          .forks(1)
          .warmupIterations(3)
          .warmupTime(TimeValue.seconds(2))
          .measurementIterations(5)
          .measurementTime(TimeValue.seconds(2));
    }
    for (RunResult result : new Runner(options.build()).run()) {
      var params = result.getParams();
      var name = params.getBenchmark().replace("dev.proxima.bench.jmh.", "");
      var scaleText = params.getParam("services") + " svc";
      if (params.getParam("endpoints") != null) {
        scaleText += " × " + params.getParam("endpoints") + " ep";
      } else {
        scaleText += " × 2 ep";
      }
      var score = result.getPrimaryResult();
      rows.add(
          Row.report(
              "JMH " + name + " (warm, average per op)",
              scaleText,
              String.format(
                  "%.3f ± %.3f %s", score.getScore(), score.getScoreError(), score.getScoreUnit()),
              "-",
              "-"));
    }
  }
}
