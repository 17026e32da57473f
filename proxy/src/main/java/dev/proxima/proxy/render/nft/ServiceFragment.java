package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Map;

/**
 * What one Service port adds to the fixed table, as script lines: its chains and their rules, its
 * sets, its elements per set, and the names of its named counters (a counted Service port's
 * per-locality counters).
 */
record ServiceFragment(
    Map<String, String> chains,
    Map<String, List<String>> rules,
    Map<String, String> sets,
    Map<String, List<String>> elements,
    List<String> counters,
    List<String> warnings) {}
