package dev.proxima.proxy.kernel;

import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Runs {@code nft}, a script on stdin as one all-or-nothing transaction. Failures come back as
 * values with the offending script line, never as exceptions: a failed sync leaves the proxy
 * running.
 */
public final class Nft implements RuleLoader {
  private static final Pattern ERROR_LOCATION = Pattern.compile("^/dev/stdin:(\\d+):");
  private static final Pattern ELEMENT_END = Pattern.compile(" (?:counter|comment|:) ");
  private static final Pattern ELEMENT_KEY = Pattern.compile("[0-9A-Za-z:./ -]+");

  /** Scrapes never wait for a counter read; on the largest tables it takes seconds. */
  static final Duration COUNTERS_TIMEOUT = Duration.ofSeconds(60);

  /** E.g. {@code nft} or {@code ip netns exec x nft}. */
  private final List<String> command;

  private final Duration timeout;

  public Nft(List<String> command, Duration timeout) {
    this.command = List.copyOf(command);
    this.timeout = timeout;
  }

  public static Nft onThisHost() {
    return new Nft(List.of(HostCommand.find("nft").orElse("nft")), Duration.ofSeconds(60));
  }

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

  @Override
  public Result apply(NftTransaction transaction) {
    return run(List.of("-f", "-"), transaction.toString());
  }

  public Result check(NftTransaction transaction) {
    return run(List.of("-c", "-f", "-"), transaction.toString());
  }

  public Result list(String family, String table) {
    return run(List.of("list", "table", family, table), "");
  }

  @Override
  public Optional<KernelTable> table(String family, String table) {
    var result =
        run(
            List.of("-t", "-f", "-"),
            "list chains " + family + "\nlist sets " + family + "\nlist maps " + family + "\n");
    return result.succeeded() ? Optional.of(KernelTable.parse(result.output())) : Optional.empty();
  }

  @Override
  public Optional<List<NftElement>> elements(String family, String table, String set) {
    var result = run(List.of("list", "set", family, table, set), "");
    return result.succeeded() ? Optional.of(elements(result.output())) : Optional.empty();
  }

  /**
   * The elements of a set's listing by key: what precedes a counter, a comment or a map's value.
   * Anything but an address, a protocol, a port or a mark is left out, never deleted by its word.
   */
  static List<NftElement> elements(String listing) {
    int open = listing.indexOf("elements = {");
    int close = listing.indexOf('}', open + 1);
    if (open < 0 || close < 0) {
      return List.of();
    }
    var elements = new ArrayList<NftElement>();
    for (var element : listing.substring(open + 12, close).split(",")) {
      var key = ELEMENT_END.split(element.strip(), 2)[0];
      if (ELEMENT_KEY.matcher(key).matches()) {
        elements.add(NftElement.of(key));
      }
    }
    return elements;
  }

  /** A check-mode delete, refused with EBUSY while a rule refers to the set: 10–18 ms at scale. */
  @Override
  public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
    var result =
        run(List.of("-c", "-f", "-"), "delete set " + family + " " + table + " " + set + "\n");
    if (result.succeeded() || result.output().contains("No such file or directory")) {
      return Optional.of(false); // free, or gone with its table
    }
    return result.output().contains("Device or resource busy")
        ? Optional.of(true)
        : Optional.empty();
  }

  /**
   * Through {@code nft -i}, one command per line: as one {@code nft -f} batch, nft 1.0.6 fetches
   * only the last set, and the others are "not found". A set the table lacks is left out.
   */
  @Override
  public Optional<String> counters(String family, String table, List<String> sets) {
    var full = new ArrayList<>(command);
    full.add("-i");
    var outcome = HostCommand.run(full, countersScript(family, table, sets), COUNTERS_TIMEOUT);
    return outcome.succeeded() ? Optional.of(outcome.output()) : Optional.empty();
  }

  /** No {@code list counters}: nft 1.0.6 reads the whole table to list a named counter. */
  static String countersScript(String family, String table, List<String> sets) {
    var script = new StringBuilder();
    for (var set : sets) {
      script.append("list set ").append(family).append(' ').append(table).append(' ');
      script.append(set).append('\n');
    }
    return script.toString();
  }

  private Result run(List<String> arguments, String script) {
    var full = new ArrayList<>(command);
    full.addAll(arguments);
    var outcome = HostCommand.run(full, script, timeout);
    if (!outcome.started()) {
      return Result.failed(outcome.output() + " (is nftables installed?)");
    }
    if (outcome.ending() != HostCommand.Ending.EXITED) {
      return Result.failed(outcome.output());
    }
    return outcome.succeeded()
        ? new Result(true, outcome.output(), null)
        : new Result(false, outcome.output(), offendingLine(outcome.output(), script));
  }

  static String offendingLine(String output, String script) {
    for (var line : output.lines().toList()) {
      var match = ERROR_LOCATION.matcher(line);
      if (match.find()) {
        return scriptLine(script, match.group(1));
      }
    }
    return null;
  }

  /** The script's line of that 1-based number, or null. */
  static String scriptLine(String script, String number) {
    int n = Integer.parseInt(number);
    var lines = script.lines().toList();
    return n >= 1 && n <= lines.size() ? lines.get(n - 1) : null;
  }
}
