package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.nftables.NftChain;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.nftables.NftRule;
import dev.proxima.proxy.nftables.NftSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What one Service port adds to the fixed table. */
record ServiceFragment(
    Map<String, NftChain> chains,
    Map<String, List<NftRule>> rules,
    Map<String, NftSet> sets,
    Map<String, List<NftElement>> elements,
    boolean counted,
    List<String> warnings) {
  List<String> countingKeys() {
    var counting = elements.getOrDefault(NftNames.serviceSet(Locality.NODE), List.of());
    var keys = new ArrayList<String>(counting.size());
    counting.forEach(element -> keys.add(element.key()));
    return keys;
  }
}
