package dev.proxima.proxy.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs the {@code nft} binary. A script goes in on stdin as one transaction, so the kernel applies
 * all of it or none of it. Failures come back as values with the offending script line attached,
 * never as exceptions, because a failed sync must leave the proxy running.
 */
public final class Nft implements RuleLoader {
  private static final Pattern ERROR_LOCATION = Pattern.compile("^/dev/stdin:(\\d+):");

  private final List<String> command;
  private final Duration timeout;

  /**
   * @param command how to run nft, e.g. {@code ["nft"]} or {@code ["ip","netns","exec","x","nft"]}
   */
  public Nft(List<String> command, Duration timeout) {
    this.command = List.copyOf(command);
    this.timeout = timeout;
  }

  /** nft from PATH, or from /usr/sbin where non-root PATHs often leave it out. */
  public static Nft onThisHost() {
    var path = System.getenv().getOrDefault("PATH", "");
    for (var dir : (path + ":/usr/sbin:/sbin").split(":")) {
      if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, "nft"))) {
        return new Nft(
            List.of(java.nio.file.Path.of(dir, "nft").toString()), Duration.ofSeconds(60));
      }
    }
    return new Nft(List.of("nft"), Duration.ofSeconds(60));
  }

  /** The outcome of one nft run. */
  public record Result(boolean succeeded, String output, String offendingLine) {
    static Result failed(String output) {
      return new Result(false, output, null);
    }

    /** One line for logs: nft's first error line and the script line it points at. */
    public String summary() {
      var first =
          output
              .lines()
              .filter(line -> !line.isBlank())
              .findFirst()
              .orElse("nft failed without output");
      return offendingLine == null
          ? first
          : first + " [script line: " + offendingLine.strip() + "]";
    }
  }

  /** Applies the script as one atomic transaction. */
  @Override
  public Result apply(String script) {
    return run(List.of("-f", "-"), script);
  }

  /** Checks the script without applying it ({@code nft -c}). */
  public Result check(String script) {
    return run(List.of("-c", "-f", "-"), script);
  }

  /** Lists a table, for reading back what is programmed. */
  public Result list(String family, String table) {
    return run(List.of("list", "table", family, table), "");
  }

  private Result run(List<String> arguments, String script) {
    var full = new ArrayList<>(command);
    full.addAll(arguments);
    Process process;
    try {
      process = new ProcessBuilder(full).redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      return Result.failed(
          "cannot run "
              + String.join(" ", command)
              + ": "
              + notInstalled.getMessage()
              + " (is nftables installed?)");
    }
    var output = CompletableFuture.supplyAsync(() -> readAll(process));
    try (var stdin = process.getOutputStream()) {
      stdin.write(script.getBytes(StandardCharsets.UTF_8));
    } catch (IOException closedEarly) {
      // nft exits early on some errors; its output says why.
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return Result.failed("nft did not finish within " + timeout);
      }
      var text = output.get(5, TimeUnit.SECONDS);
      if (process.exitValue() == 0) {
        return new Result(true, text, null);
      }
      return new Result(false, text, offendingLine(text, script));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return Result.failed("interrupted while nft ran");
    } catch (Exception unreadable) {
      return Result.failed("could not read nft output: " + unreadable.getMessage());
    }
  }

  private static String readAll(Process process) {
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  static String offendingLine(String output, String script) {
    for (var line : output.lines().toList()) {
      var match = ERROR_LOCATION.matcher(line);
      if (match.find()) {
        int number = Integer.parseInt(match.group(1));
        var lines = script.lines().toList();
        return number >= 1 && number <= lines.size() ? lines.get(number - 1) : null;
      }
    }
    return null;
  }
}
