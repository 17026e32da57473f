package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.nft.NftCounters;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrintingRuleLoaderTest {
  private final PrintingRuleLoader loader = new PrintingRuleLoader(script -> {});

  @Test
  void aDryRunsKernelListsEveryNodeWideCountAtZero() {
    var listing =
        loader.counters("ip", NftNames.TABLE, java.util.List.of(NftNames.COUNTERS)).orElseThrow();

    var counts =
        ConnectionCounts.from(
                NftCounters.parse(listing), NftCounters::of, NftCounters.withoutEndpoints())
            .orElseThrow();

    assertThat(counts.withoutEndpoints()).isZero();
    assertThat(counts.byLocality()).containsOnlyKeys(Locality.values());
    assertThat(counts.byLocality().values()).containsOnly(0L);
  }

  @Test
  void aDryRunsKernelCountsEveryCountedServicePortAtZero() {
    var sets = new ArrayList<String>();
    sets.add(NftNames.COUNTERS);
    sets.addAll(NftNames.SERVICE_SETS);
    var listing = loader.counters("ip", NftNames.TABLE, sets).orElseThrow();
    var web = new ServicePortName(new ObjectKey("shop", "web"), "http", Protocol.TCP);

    var ports = NftCounters.servicePortCounts(listing, Map.of(), Set.of(web)).asMap();

    assertThat(ports).containsOnlyKeys(web);
    assertThat(ports.get(web).values()).containsOnly(0L);
  }
}
