package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Map;

/**
 * What one Service port adds to the fixed table, as script lines: its chains and their rules, its
 * sets, and its elements per set.
 */
record ServiceFragment(
    Map<String, String> chains,
    Map<String, List<String>> rules,
    Map<String, String> sets,
    Map<String, List<String>> elements,
    List<String> warnings) {}
