package dev.proxima.proxy.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.ProxyMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/testing.md's "Where Proxima differs" table and its counts true to the conformance
 * table the suite runs: every declared difference is a row, every row is a declared difference,
 * with the same outcomes. A fix that removes a difference from the data fails here until the page
 * says so too. Needs no kernel.
 */
class ConformanceDifferencesDocTest {
  private static final Path PAGE = Path.of("..", "docs", "testing.md");
  private static final Pattern COUNTS =
      Pattern.compile(
          "all (\\d+) in nftables mode and (\\d+) of (\\d+) in iptables\\s+mode|(\\d+) of (\\d+)"
              + " in nftables mode and (\\d+) of (\\d+) in iptables\\s+mode");
  private static final Pattern PORTED =
      Pattern.compile("(\\d+) cases, (\\d+) with the variants, in (\\d+) scenarios");

  /** One difference: upstream test, case, mode, what Proxima does, what upstream expects. */
  private record Declared(String test, String flow, String mode, String proxima, String upstream)
      implements Comparable<Declared> {
    @Override
    public int compareTo(Declared other) {
      return toString().compareTo(other.toString());
    }
  }

  @Test
  void theDifferencesTableListsExactlyTheDifferencesTheSuiteDeclares() throws IOException {
    assertThat(documented())
        .as("docs/testing.md, \"Where Proxima differs\", against %s", FlowTable.RESOURCE)
        .containsExactlyElementsOf(declared());
  }

  @Test
  void theCountsOnThePageAreTheSuitesCounts() throws IOException {
    var table = FlowTable.load();
    var names = table.scenarios().stream().map(FlowTable.Scenario::name).toList();
    // A variant is named after its scenario: "<scenario> (<variant>)".
    var base =
        table.scenarios().stream()
            .filter(s -> names.stream().noneMatch(n -> s.name().startsWith(n + " (")))
            .toList();
    int cases = base.stream().mapToInt(s -> s.cases().size()).sum();
    int withVariants = table.scenarios().stream().mapToInt(s -> s.cases().size()).sum();
    var text = Files.readString(PAGE).replaceAll("\\s+", " ");

    var ported = PORTED.matcher(text);
    assertThat(ported.find()).as("the page states how many cases are ported").isTrue();
    assertThat(List.of(ported.group(1), ported.group(2), ported.group(3)))
        .containsExactly(
            Integer.toString(cases), Integer.toString(withVariants), Integer.toString(base.size()));

    var counts = COUNTS.matcher(text);
    assertThat(counts.find()).as("the page states how many cases match upstream").isTrue();
    int nftables = cases - differing(base, ProxyMode.nftables);
    int iptables = cases - differing(base, ProxyMode.iptables);
    if (counts.group(1) != null) {
      assertThat(List.of(counts.group(1), counts.group(2), counts.group(3)))
          .containsExactly(
              Integer.toString(cases), Integer.toString(iptables), Integer.toString(cases));
      assertThat(nftables).as("\"all\" cases in nftables mode").isEqualTo(cases);
    } else {
      assertThat(List.of(counts.group(4), counts.group(5), counts.group(6), counts.group(7)))
          .containsExactly(
              Integer.toString(nftables),
              Integer.toString(cases),
              Integer.toString(iptables),
              Integer.toString(cases));
    }
  }

  private static int differing(List<FlowTable.Scenario> scenarios, ProxyMode mode) {
    return (int)
        scenarios.stream()
            .flatMap(s -> s.cases().stream())
            .filter(flow -> flow.proxima().containsKey(mode))
            .count();
  }

  /** The differences in the data, once per case and mode (variants repeat their scenario's). */
  private static Set<Declared> declared() {
    var declared = new TreeSet<Declared>();
    for (var scenario : FlowTable.load().scenarios()) {
      var test = scenario.upstream().replaceAll(" \\(.*", "");
      for (var flow : scenario.cases()) {
        flow.proxima()
            .forEach(
                (mode, difference) ->
                    declared.add(
                        new Declared(
                            test,
                            flow.name(),
                            mode.name(),
                            difference.outcome().toString(),
                            flow.upstream().toString())));
      }
    }
    return declared;
  }

  /** The rows of the page's table, each with a reason. */
  private static Set<Declared> documented() throws IOException {
    var lines = Files.readAllLines(PAGE);
    int start = lines.indexOf("## Where Proxima differs");
    assertThat(start).as("docs/testing.md has a \"Where Proxima differs\" section").isNotNegative();
    var rows = new ArrayList<List<String>>();
    boolean inTable = false;
    for (var line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (line.startsWith("|")) {
        inTable = true;
        rows.add(cells(line));
      } else if (inTable) {
        break;
      }
    }
    assertThat(rows).as("the table's header and separator").hasSizeGreaterThanOrEqualTo(2);
    assertThat(rows.get(0))
        .containsExactly("upstream test", "case", "mode", "Proxima", "upstream", "why");
    var documented = new TreeSet<Declared>();
    for (var row : rows.subList(2, rows.size())) {
      assertThat(row).as("a row of six cells: %s", row).hasSize(6);
      assertThat(row.get(5)).as("the reason of %s", row).isNotBlank();
      documented.add(
          new Declared(
              row.get(0),
              row.get(1),
              row.get(2).toLowerCase(Locale.ROOT),
              unquote(row.get(3)),
              unquote(row.get(4))));
    }
    return documented;
  }

  private static List<String> cells(String line) {
    var inner = line.trim().replaceAll("^\\|", "").replaceAll("\\|$", "");
    var cells = new ArrayList<String>();
    for (var cell : inner.split("(?<!\\\\)\\|", -1)) {
      cells.add(cell.trim());
    }
    return cells;
  }

  private static String unquote(String cell) {
    return cell.replace("`", "");
  }
}
