package dev.proxima.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The harness behind ./bench.sh: runs every benchmark and prints one Markdown table. Targets are
 * printed, never enforced: the exit code is non-zero only when the harness itself failed, so the CI
 * smoke run catches a rotten harness without failing on a noisy machine.
 *
 * <p>Options: {@code --smoke} (small sizes, seconds), {@code --iptables} (also run the proxy's
 * iptables mode rows), {@code
 * --only=jmh,proxy,footprint,latency,counting,controller,extreme,soak,hostile} (and {@code memory},
 * the memory rows alone), {@code --extreme} (the extreme shapes alone), {@code --soak[=minutes]}
 * (the soak alone, 30 minutes unless given; with {@code --extreme}, both), {@code --quick} (the
 * full sizes with fewer repetitions), {@code --work=DIR}.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    boolean smoke = false;
    boolean iptables = false;
    boolean quick = false;
    List<String> only =
        List.of(
            "jmh",
            "proxy",
            "footprint",
            "latency",
            "counting",
            "controller",
            "extreme",
            "soak",
            "hostile");
    var chosen = new ArrayList<String>();
    Double soakMinutes = null;
    int coldStarts = 5;
    String extremeShape = null;
    Path work = Path.of("bench", "target", "bench-work");
    Path root = Path.of(".");
    for (var arg : args) {
      if (arg.equals("--smoke")) {
        smoke = true;
      } else if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.equals("--iptables")) {
        iptables = true;
      } else if (arg.equals("--extreme")) {
        chosen.add("extreme");
      } else if (arg.startsWith("--extreme=")) {
        // One shape, e.g. --extreme=44000x1, so a run that holds the netns lock stays short.
        chosen.add("extreme");
        extremeShape = arg.substring("--extreme=".length());
      } else if (arg.equals("--cold")) {
        chosen.add("cold");
      } else if (arg.startsWith("--cold=")) {
        chosen.add("cold");
        coldStarts = Integer.parseInt(arg.substring("--cold=".length()));
      } else if (arg.equals("--soak")) {
        chosen.add("soak");
      } else if (arg.startsWith("--soak=")) {
        chosen.add("soak");
        soakMinutes = Double.parseDouble(arg.substring("--soak=".length()));
      } else if (arg.startsWith("--only=")) {
        only = List.of(arg.substring("--only=".length()).split(","));
      } else if (arg.startsWith("--work=")) {
        work = Path.of(arg.substring("--work=".length()));
      } else if (arg.startsWith("--root=")) {
        root = Path.of(arg.substring("--root=".length()));
      } else {
        System.err.println("unknown option " + arg);
        System.exit(2);
      }
    }
    if (!chosen.isEmpty()) {
      only = chosen;
    }
    Files.createDirectories(work);
    // Interrupted runs must not leave proxies, probes or monitors behind in the scratch namespaces.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
    final Path workDir = work.toAbsolutePath();
    final boolean iptablesMode = iptables;
    final boolean proxySection = only.contains("proxy");
    var chosenScale = smoke ? Scale.smokeRun() : quick ? Scale.quickRun() : Scale.fullRun();
    var soakScale = soakMinutes == null ? chosenScale : chosenScale.withSoakMinutes(soakMinutes);
    var scale = extremeShape == null ? soakScale : soakScale.withExtremeShape(extremeShape);
    var rows = new ArrayList<Row>();
    var errors = new ArrayList<String>();
    var machine = Machine.describe();
    var proxyJar = root.resolve("proxy/target/proxima-proxy.jar").toAbsolutePath();
    var controllerJar = root.resolve("controller/target/proxima-controller.jar").toAbsolutePath();
    var benchJar =
        Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    String kernelSkip = Machine.kernelBenchmarksUnavailable();
    long started = System.currentTimeMillis();
    // The iptables-mode rows run only when asked for and when this build's proxy has the mode.
    final boolean iptablesRows = iptables && IptablesModeBenchmarks.modeAvailable(proxyJar);

    if (only.contains("jmh")) {
      section("JMH", errors, rows, () -> JmhBenchmarks.run(scale, rows));
    }
    try (var namespaces = new Namespaces()) {
      // "memory" runs just the memory rows (proxy and controller RSS), which "proxy" includes.
      if (only.contains("proxy") || only.contains("memory")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("1-3, 6 proxy process benchmarks", "-", kernelSkip));
        } else {
          section(
              "proxy",
              errors,
              rows,
              () -> {
                if (proxySection) {
                  try (var api = new ApiServer()) {
                    var proxy =
                        new ProxyBenchmarks(
                            scale, api, namespaces, workDir, proxyJar, rows, iptablesRows);
                    proxy.run();
                  }
                }
                try (var memoryApi = new ApiServer()) {
                  var proxy =
                      new ProxyBenchmarks(
                          scale, memoryApi, namespaces, workDir, proxyJar, rows, false);
                  proxy.memory();
                  new ControllerBenchmarks(
                          scale, namespaces, workDir, controllerJar, proxyJar, rows)
                      .memory(memoryApi, proxy.memoryCluster());
                }
              });
        }
        if (proxySection && !iptablesRows) {
          iptablesModeRows(iptables, rows);
        }
      }
      if (only.contains("footprint")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("Footprint: proxy RSS and CPU", "-", kernelSkip));
        } else {
          section(
              "footprint",
              errors,
              rows,
              () -> new FootprintBenchmark(scale, namespaces, workDir, proxyJar, rows).run());
        }
      }
      if (only.contains("cold")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("cold full sync", "-", kernelSkip));
        } else {
          final int startCount = coldStarts;
          section(
              "cold",
              errors,
              rows,
              () -> {
                try (var api = new ApiServer()) {
                  new ColdStartBenchmark(
                          new Harness(scale, namespaces, workDir, proxyJar, controllerJar, rows),
                          api,
                          startCount)
                      .run();
                }
              });
        }
      }
      if (only.contains("latency")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("first-packet latency", "-", kernelSkip));
        } else {
          section(
              "latency",
              errors,
              rows,
              () -> new LatencyBenchmark(scale, namespaces, benchJar, rows, iptablesMode).run());
        }
      }
      if (only.contains("counting")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("locality counting cost", "-", kernelSkip));
        } else {
          section(
              "counting",
              errors,
              rows,
              () -> {
                try (var api = new ApiServer()) {
                  new LocalityCountingBenchmark(
                          new Harness(scale, namespaces, workDir, proxyJar, controllerJar, rows),
                          api)
                      .run();
                }
              });
        }
      }
      if (only.contains("controller")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("7, 8 controller and end-to-end", "-", kernelSkip));
        } else {
          section(
              "controller",
              errors,
              rows,
              () ->
                  new ControllerBenchmarks(
                          scale, namespaces, workDir, controllerJar, proxyJar, rows)
                      .run());
        }
      }
      if (only.contains("extreme")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("extreme shapes (44,000 × 1 and 5,000 × 50)", "-", kernelSkip));
        } else {
          section(
              "extreme",
              errors,
              rows,
              () ->
                  new ExtremeBenchmarks(
                          new Harness(scale, namespaces, workDir, proxyJar, controllerJar, rows))
                      .run());
        }
      }
      if (only.contains("hostile")) {
        // Offline renders: every row runs without root; only the bare loads need the kernel.
        section(
            "hostile",
            errors,
            rows,
            () -> new HostileShapes(scale, kernelSkip == null, namespaces, rows).run());
      }
      if (only.contains("soak")) {
        if (kernelSkip != null) {
          rows.add(Row.skipped("soak", "-", kernelSkip));
        } else {
          section(
              "soak",
              errors,
              rows,
              () ->
                  new SoakBenchmark(
                          new Harness(scale, namespaces, workDir, proxyJar, controllerJar, rows))
                      .run());
        }
      }
    }

    var out = new StringBuilder();
    out.append(
        smoke
            ? "## Proxima benchmarks (smoke scale: figures are not comparable with the targets)\n\n"
            : "## Proxima benchmarks\n\n");
    out.append(machine)
        .append("- load average after the run: ")
        .append(Machine.loadAverage())
        .append('\n');
    out.append("- wall time of the run: ")
        .append(Row.ms(System.currentTimeMillis() - started))
        .append("\n\n");
    out.append(Row.header()).append('\n');
    rows.forEach(row -> out.append(row.markdown()).append('\n'));
    if (!errors.isEmpty()) {
      out.append("\nHarness errors:\n");
      errors.forEach(e -> out.append("- ").append(e.replace("\n", "\n  ")).append('\n'));
    }
    System.out.print(out);
    Files.writeString(work.resolve("results.md"), out);
    // The charts of docs/performance.md, from this run's figures (small-scale runs: work dir only).
    PerformanceCharts.update(rows, root, work, smoke || quick);
    System.exit(errors.isEmpty() ? 0 : 1);
  }

  interface Section {
    void run() throws Exception;
  }

  private static void section(String name, List<String> errors, List<Row> rows, Section section) {
    System.err.println("bench: " + name + " ...");
    long started = System.currentTimeMillis();
    try {
      section.run();
    } catch (Exception | Error e) {
      var message = name + ": " + e;
      var cause = e.getCause();
      if (cause != null) {
        message += " (cause: " + cause + ")";
      }
      e.printStackTrace();
      errors.add(message);
      rows.add(
          new Row(
              name + " section failed", "-", "harness error, see below", "-", "-", "-", "ERROR"));
    }
    System.err.println("bench: " + name + " took " + Row.ms(System.currentTimeMillis() - started));
  }

  /** The iptables mode's proxy rows when they did not run: they take a quarter of an hour more. */
  private static void iptablesModeRows(boolean iptables, List<Row> rows) {
    String why =
        iptables
            ? "--iptables given, but this build's `run --mode` accepts only nftables"
            : "not run: add --iptables";
    rows.add(
        Row.skipped(
            "iptables mode: cold full sync vs bare iptables-restore", "10000 svc × 2 ep", why));
    rows.add(
        Row.skipped("iptables mode: partial sync, and flat 10k vs 1k", "10000 vs 1000 svc", why));
  }
}
