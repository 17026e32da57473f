package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Set;

/**
 * Table {@code proxima} without any Service port.
 *
 * @param script replaces the kernel's table with this one
 */
record FixedTable(String script, Set<String> chains, Set<String> maps, List<String> warnings) {
  FixedTable {
    warnings = List.copyOf(warnings);
  }
}
