package dev.proxima.proxy.render.nft;

import java.util.List;
import java.util.Map;

/**
 * What one Service port adds to the fixed table, as script lines: its chains and their rules, its
 * sets, its elements per set, and whether its connections are counted per locality (its counting
 * keys are then its elements of the {@code service-<locality>} sets).
 */
record ServiceFragment(
    Map<String, String> chains,
    Map<String, List<String>> rules,
    Map<String, String> sets,
    Map<String, List<String>> elements,
    boolean counted,
    List<String> warnings) {
  /** The keys this port counts its connections under: the same in each locality's set. */
  List<String> countingKeys() {
    return elements.getOrDefault(
        NftNames.serviceSet(dev.proxima.proxy.model.Locality.NODE), List.of());
  }
}
