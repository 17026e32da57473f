package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Set;

/**
 * Table {@code proxima} without any Service port, as {@link FixedLayout} builds it.
 *
 * @param script replaces the kernel's table with this one
 * @param body the script without the statements that replace the table: its counters, chains, sets,
 *     rules and elements, for a script that keeps the table
 * @param chains the names of its chains
 * @param maps the names of its maps (the other objects are sets)
 * @param counters the names of its named counters
 * @param warnings what of the settings it left out (loopback NodePort addresses)
 */
record FixedTable(
    String script,
    String body,
    Set<String> chains,
    Set<String> maps,
    Set<String> counters,
    List<String> warnings) {
  FixedTable {
    warnings = List.copyOf(warnings);
  }
}
