package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Set;

/**
 * Table {@code proxima} without any Service port, as {@link FixedLayout} builds it.
 *
 * @param script replaces the kernel's table with this one
 * @param chains the names of its chains
 * @param maps the names of its maps (the other objects are sets)
 * @param warnings what of the settings it left out (loopback NodePort addresses)
 */
record FixedTable(String script, Set<String> chains, Set<String> maps, List<String> warnings) {
  FixedTable {
    warnings = List.copyOf(warnings);
  }
}
