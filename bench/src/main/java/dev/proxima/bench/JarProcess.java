package dev.proxima.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One packaged jar running as its own process, optionally inside a network namespace, with the JVM
 * flags the images use. Its log goes to a file the harness reads for timestamps; its Prometheus
 * endpoint is scraped over HTTP.
 */
final class JarProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path log;
  private final String metricsUrl;
  final long startedMillis;

  private JarProcess(Process process, Path log, String metricsUrl, long startedMillis) {
    this.process = process;
    this.log = log;
    this.metricsUrl = metricsUrl;
    this.startedMillis = startedMillis;
  }

  static JarProcess start(
      String namespace,
      Path jar,
      List<String> extraJvmFlags,
      List<String> arguments,
      Path log,
      String metricsUrl) {
    return start(namespace, jar, extraJvmFlags, arguments, log, metricsUrl, Map.of());
  }

  /**
   * As above, with {@code extraEnvironment} on top of the manifest's (e.g. a PATH that puts a
   * timing wrapper in front of a host tool).
   */
  static JarProcess start(
      String namespace,
      Path jar,
      List<String> extraJvmFlags,
      List<String> arguments,
      Path log,
      String metricsUrl,
      Map<String, String> extraEnvironment) {
    var command = new ArrayList<String>();
    if (namespace != null) {
      command.addAll(List.of("ip", "netns", "exec", namespace));
    }
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    var deployed = DeployedJvm.forJar(jar);
    command.addAll(deployed.flags());
    command.addAll(extraJvmFlags);
    command.addAll(DeployedJvm.trialFlags());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(arguments);
    try {
      long started = System.currentTimeMillis();
      var environment = new java.util.HashMap<>(deployed.environment());
      environment.putAll(extraEnvironment);
      var process =
          builder(command, environment)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new JarProcess(process, log, metricsUrl, started);
    } catch (IOException e) {
      throw new HarnessError("cannot start " + jar, e);
    }
  }

  private static ProcessBuilder builder(List<String> command, Map<String, String> environment) {
    var builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    return builder;
  }

  long pid() {
    // ip netns exec replaces itself with java, so the pid is the JVM's
    return process.pid();
  }

  /**
   * CPU time the process has used so far, user and system, in milliseconds (from /proc; clock ticks
   * of 10 ms). Unlike wall time, it hardly moves with what else loads the machine.
   */
  double cpuMillis() {
    try {
      var stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
      var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // utime and stime are the 14th and 15th fields; the split starts at the 3rd.
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10.0;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  /**
   * Resident and peak resident set size in MiB, from /proc, and how much of the resident set is
   * file-backed (the JDK's module image, shared libraries): pages the kernel can drop and other
   * JVMs on the node share.
   */
  double[] rssAndPeakMiB() {
    try {
      double rss = 0;
      double peak = 0;
      double fileBacked = 0;
      for (var line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = kib(line) / 1024.0;
        } else if (line.startsWith("VmHWM:")) {
          peak = kib(line) / 1024.0;
        } else if (line.startsWith("RssFile:")) {
          fileBacked = kib(line) / 1024.0;
        }
      }
      return new double[] {rss, peak, fileBacked};
    } catch (IOException e) {
      throw new HarnessError("cannot read the memory of process " + pid(), e);
    }
  }

  /**
   * Writes where the resident memory is beside the log ({@code .footprint.txt}): the kernel's split
   * into anonymous and file-backed pages, the threads by name, and, when the process tracks native
   * memory (BENCH_TRIAL_JVM_FLAGS=-XX:NativeMemoryTracking=summary), the JVM's own split into heap,
   * metaspace, code, threads and the rest. For finding what a flag could cut; nothing reads it.
   */
  void writeFootprint() {
    var pid = Long.toString(pid());
    var out = new StringBuilder();
    try {
      out.append(Files.readString(Path.of("/proc", pid, "smaps_rollup"))).append('\n');
      // Resident KiB by mapped file (anonymous mappings under ""), and how much of it is private.
      var byFile = new java.util.TreeMap<String, long[]>();
      String mapping = "";
      for (var line : Files.readAllLines(Path.of("/proc", pid, "smaps"))) {
        if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
          var fields = line.trim().split("\\s+");
          mapping = fields.length > 5 ? fields[5] : "";
        } else if (line.startsWith("Rss:")) {
          byFile.computeIfAbsent(mapping, m -> new long[2])[0] += kib(line);
        } else if (line.startsWith("Private_Dirty:")) {
          byFile.computeIfAbsent(mapping, m -> new long[2])[1] += kib(line);
        }
      }
      byFile.entrySet().stream()
          .filter(e -> e.getValue()[0] >= 512)
          .forEach(
              e ->
                  out.append(
                      String.format(
                          "%8d kB resident, %8d kB private dirty  %s%n",
                          e.getValue()[0], e.getValue()[1], e.getKey())));
      var names = new java.util.TreeMap<String, Integer>();
      try (var tasks = Files.list(Path.of("/proc", pid, "task"))) {
        for (var task : tasks.toList()) {
          var name = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          names.merge(name, 1, Integer::sum);
        }
      }
      names.forEach((name, count) -> out.append(count).append(" × ").append(name).append('\n'));
      var jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
      out.append('\n')
          .append(Sh.run(List.of(jcmd, pid, "GC.heap_info"), "").output())
          .append('\n')
          .append(Sh.run(List.of(jcmd, pid, "VM.native_memory", "summary"), "").output());
      Files.writeString(log.resolveSibling(log.getFileName() + ".footprint.txt"), out);
    } catch (IOException | RuntimeException e) {
      Progress.log("cannot write the footprint of process " + pid + ": " + e.getMessage());
    }
  }

  /**
   * Forces a full collection with jcmd, then reports RSS and the live heap (the class histogram's
   * total, which a histogram computes after a full collection), in MiB: how much of the resident
   * memory is live data and how much is heap the JVM had grown into, metaspace, code and threads.
   * The histogram and, when the process tracks native memory, its summary go beside the log.
   */
  double[] rssAndLiveHeapAfterFullGc() {
    var jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    var pid = Long.toString(pid());
    Sh.run(List.of(jcmd, pid, "GC.run"), "").orThrow(List.of("jcmd GC.run"));
    pause(1000);
    var histogram =
        Sh.run(List.of(jcmd, pid, "GC.class_histogram"), "")
            .orThrow(List.of("jcmd GC.class_histogram"))
            .output();
    var total = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)").matcher(histogram);
    if (!total.find()) {
      throw new HarnessError("no total in the class histogram of process " + pid);
    }
    double liveMiB = Long.parseLong(total.group(1)) / (1024.0 * 1024.0);
    var nativeMemory = Sh.run(List.of(jcmd, pid, "VM.native_memory", "summary"), "").output();
    var top =
        histogram
            .lines()
            .filter(line -> !line.matches("\\s*\\d{3,}:.*"))
            .collect(Collectors.joining("\n"));
    try {
      Files.writeString(
          log.resolveSibling(log.getFileName() + ".memory.txt"), top + "\n\n" + nativeMemory);
    } catch (IOException e) {
      Progress.log("cannot write the class histogram: " + e.getMessage());
    }
    return new double[] {rssAndPeakMiB()[0], liveMiB};
  }

  /** The number of threads of the process, from /proc. */
  int threads() {
    try {
      for (var line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("Threads:")) {
          return Integer.parseInt(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      throw new HarnessError("cannot read the threads of process " + pid(), e);
    }
    throw new HarnessError("no thread count for process " + pid());
  }

  private static long kib(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  /** Every series the process exports, as a Prometheus scrape gets them. */
  String metrics() {
    return get(metricsUrl);
  }

  /**
   * Only the metric families {@code families} (by their names without {@code _total}), through the
   * server's {@code name[]} filter: polls that wait for a sync need a few series, and a whole
   * scrape with every Service port's locality series costs the proxy tens of MiB of garbage. Falls
   * back to the whole scrape when the filtered one has none of them (a server without filters).
   */
  String metrics(String... families) {
    var query = new StringBuilder(metricsUrl).append('?');
    for (var family : families) {
      for (var name : List.of(family, family + "_total")) {
        query.append("name[]=").append(name).append('&');
      }
    }
    var filtered = get(query.substring(0, query.length() - 1));
    for (var family : families) {
      if (filtered.contains("\n" + family) || filtered.startsWith(family)) {
        return filtered;
      }
    }
    return metrics();
  }

  private static String get(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException | InterruptedException notYet) {
      return "";
    }
  }

  /** The value of one sample, e.g. {@code name{ip_family="IPv4"}}; empty when absent. */
  static OptionalDouble sample(String metrics, String nameAndLabels) {
    var pattern =
        Pattern.compile("^" + Pattern.quote(nameAndLabels) + " (\\S+)", Pattern.MULTILINE);
    var match = pattern.matcher(metrics);
    return match.find()
        ? OptionalDouble.of(Double.parseDouble(match.group(1)))
        : OptionalDouble.empty();
  }

  /** Waits for a condition, failing the harness with the process log when it never holds. */
  void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      if (!process.isAlive()) {
        throw new HarnessError(
            what + ": the process exited " + process.exitValue() + "\n" + tail());
      }
      pause(5);
    }
    throw new HarnessError(what + ": not within " + timeout + "\n" + tail());
  }

  static void pause(long millis) {
    // The harness polls processes it does not control; a short wait between polls is the point.
    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /** Epoch millis of the first JSON log line whose message contains {@code text}, if any. */
  OptionalDouble loggedAt(String text) {
    return loggedAt(text, "");
  }

  /** Epoch millis of the first JSON log line that contains both texts, if any. */
  OptionalDouble loggedAt(String text, String andText) {
    try {
      for (var line : Files.readAllLines(log)) {
        if (line.contains(text) && line.contains(andText)) {
          // The JSON log format writes the time as an ISO instant in "@timestamp".
          var match = Pattern.compile("\"@timestamp\":\\s*\"([^\"]+)\"").matcher(line);
          if (match.find()) {
            return OptionalDouble.of(java.time.Instant.parse(match.group(1)).toEpochMilli());
          }
        }
      }
    } catch (IOException e) {
      // not written yet
    }
    return OptionalDouble.empty();
  }

  /** The JSON log lines that contain both texts, in the order written; none before the log is. */
  List<String> loggedLines(String text, String andText) {
    try {
      return Files.readAllLines(log).stream()
          .filter(line -> line.contains(text) && line.contains(andText))
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  String tail() {
    try {
      var lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  /** SIGTERM, as a pod stop; rules stay in the kernel. */
  void stop() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      stop();
    }
  }
}
