package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Times every {@code nft} run of one proxy without touching the proxy: a wrapper script named
 * {@code nft}, first on the proxy's PATH (the proxy runs the first {@code nft} its PATH names),
 * logs each run's start, end, exit code and arguments, then returns the real nft's exit code. The
 * wrapper's own cost (a shell and two {@code date} runs, a few milliseconds) is inside each figure,
 * so a figure is an upper bound of the kernel transaction it wraps. {@link #iptablesRestore} wraps
 * the iptables mode's restore tools the same way, timing each run after its input is read and
 * logging its line count.
 */
final class NftTimer {
  /** One nft run: wall-clock epoch millis, exit code and arguments. */
  record Run(double startMillis, double endMillis, int exitCode, String arguments) {
    double millis() {
      return endMillis - startMillis;
    }

    /**
     * A transaction: a script loaded with {@code -f} (not merely checked with {@code -c}), or any
     * run of a restore tool (logged with its name first).
     */
    boolean transaction() {
      return arguments.contains("-f") && !arguments.startsWith("-c ")
          || arguments.contains("-restore ");
    }
  }

  private final Path directory;
  private final Path log;

  NftTimer(Path work, String name) {
    this(work, "nft-timer-" + name, List.of("nft"), false);
  }

  /**
   * Times {@code iptables-nft-restore} and {@code ip6tables-nft-restore}, the tools an iptables
   * mode proxy on the nft backend loads its buffers with (the backend a bare namespace gets).
   */
  static NftTimer iptablesRestore(Path work, String name) {
    return new NftTimer(
        work,
        "restore-timer-" + name,
        List.of("iptables-nft-restore", "ip6tables-nft-restore"),
        true);
  }

  private NftTimer(Path work, String directoryName, List<String> tools, boolean logName) {
    directory = work.resolve(directoryName);
    log = directory.resolve("runs.log");
    try {
      Files.createDirectories(directory);
      Files.deleteIfExists(log);
      for (String tool : tools) {
        var real = Sh.run(List.of("sh", "-c", "command -v " + tool), "").output().strip();
        if (real.isEmpty()) {
          throw new HarnessError("no " + tool + " on the harness's PATH");
        }
        var wrapper = directory.resolve(tool);
        Files.writeString(
            wrapper,
            logName
                // A restore's input is read first, so its figure is the tool's own run and the log
                // says how many lines it loaded.
                ? """
                  #!/bin/sh
                  input=$(mktemp)
                  cat > "$input"
                  lines=$(wc -l < "$input")
                  start=$(date +%%s%%N)
                  %s "$@" < "$input"
                  rc=$?
                  end=$(date +%%s%%N)
                  rm -f "$input"
                  echo "$start $end $rc %s $lines lines $*" >> %s
                  exit $rc
                  """
                    .formatted(real, tool, log)
                : """
                  #!/bin/sh
                  start=$(date +%%s%%N)
                  %s "$@"
                  rc=$?
                  end=$(date +%%s%%N)
                  echo "$start $end $rc $*" >> %s
                  exit $rc
                  """
                    .formatted(real, log));
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
    } catch (IOException e) {
      throw new HarnessError("cannot write the timing wrapper in " + directory, e);
    }
  }

  /** The environment that puts the wrapper first on the proxy's PATH. */
  Map<String, String> environment() {
    return Map.of("PATH", directory + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
  }

  /** Every run logged so far, in order. */
  List<Run> runs() {
    var runs = new ArrayList<Run>();
    try {
      if (!Files.exists(log)) {
        return runs;
      }
      for (var line : Files.readAllLines(log)) {
        var parts = line.split(" ", 4);
        if (parts.length < 3) {
          continue;
        }
        runs.add(
            new Run(
                Long.parseLong(parts[0]) / 1e6,
                Long.parseLong(parts[1]) / 1e6,
                Integer.parseInt(parts[2]),
                parts.length > 3 ? parts[3] : ""));
      }
    } catch (IOException | NumberFormatException e) {
      throw new HarnessError("cannot read the nft timing log " + log, e);
    }
    return runs;
  }

  /** The runs that started within [from, to] epoch millis. */
  List<Run> runs(double from, double to) {
    return runs().stream().filter(r -> r.startMillis() >= from && r.startMillis() <= to).toList();
  }

  /** The median time of the runs' transactions, millis; 0 when none loaded a script. */
  static double medianTransaction(List<Run> runs) {
    var millis = runs.stream().filter(Run::transaction).map(Run::millis).toList();
    return millis.isEmpty() ? 0 : new Stats(millis).median();
  }

  /** The longest transaction of the runs, or null when none loaded a script. */
  static Run longestTransaction(List<Run> runs) {
    return runs.stream()
        .filter(Run::transaction)
        .max(java.util.Comparator.comparingDouble(Run::millis))
        .orElse(null);
  }
}
