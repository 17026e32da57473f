package dev.proxima.bench;

import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ObserveLocality;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The locality counting's cost bounds for the live proxy: partial-sync time and memory with
 * locality counting off ({@code --observe-locality=off}: no counters at all) and on for every
 * Service port ({@code --observe-locality=all}, the cap above the cluster's ports), the two ends of
 * what counting can cost. Both runs watch the same API server and alternate, so machine noise hits
 * both alike.
 */
final class LocalityCountingBenchmark {
  /** How often the harness scrapes every series while it measures, as a Prometheus would. */
  private static final java.time.Duration SCRAPE_INTERVAL = java.time.Duration.ofSeconds(15);

  private static final List<ObserveLocality> MODES =
      List.of(ObserveLocality.OFF, ObserveLocality.ALL);

  private final Harness harness;
  private final ApiServer api;

  LocalityCountingBenchmark(Harness harness, ApiServer api) {
    this.harness = harness;
    this.api = api;
  }

  void run() throws Exception {
    var scale = harness.scale();
    var namespaces = harness.namespaces();
    var cluster = new SyntheticCluster(scale.coldServices(), 2, "PreferSameZone");
    api.createAll(cluster.nodes());
    api.createAll(cluster.services());
    api.createAll(cluster.slices());
    var probe = new PartialSyncProbe(api, 193);
    List<List<Double>> partials = List.of(new ArrayList<>(), new ArrayList<>());
    List<List<Double>> peaks = List.of(new ArrayList<>(), new ArrayList<>());
    List<List<Double>> live = List.of(new ArrayList<>(), new ArrayList<>());
    int rounds = scale.smoke() ? 1 : 2;
    for (int round = 0; round < rounds; round++) {
      for (int m = 0; m < MODES.size(); m++) {
        var mode = MODES.get(m);
        var rules = new RenderedRules(cluster, mode);
        var baseline = namespaces.create("count-bare");
        try (var node =
            new ProxyNode(namespaces, "count-" + round + m, api, harness.work(), harness.proxyJar())
                .arguments(arguments(mode, cluster))) {
          Sh.run(Sh.in(baseline, "nft", "-f", "-"), rules.fullScript()).orThrow(List.of("nft -f"));
          var proxy = node.startAndAwaitSync(List.of());
          PartialSyncProbe.Result result;
          // A Prometheus scrapes every series every 15 s while the partial syncs run: the scrape
          // of every Service port's locality series is part of what counting costs.
          var prometheus = Executors.newSingleThreadScheduledExecutor();
          try {
            prometheus.scheduleAtFixedRate(
                () -> proxy.metrics(), 0, SCRAPE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            result = probe.measure(node, cluster, baseline, rules, scale.partialChanges());
          } finally {
            prometheus.shutdownNow();
          }
          partials.get(m).addAll(result.latencies().values());
          peaks.get(m).add(proxy.rssAndPeakMiB()[1]);
          live.get(m).add(proxy.rssAndLiveHeapAfterFullGc()[1]);
          Progress.log(
              "locality counting "
                  + mode
                  + ": partial median "
                  + Row.ms(result.latencies().median()));
        } finally {
          namespaces.delete(baseline);
        }
      }
    }
    String size = cluster.serviceCount() + " svc × 2 ep";
    var partialOff = new Stats(partials.get(0));
    var partialOn = new Stats(partials.get(1));
    harness
        .rows()
        .add(
            Row.countingCost(
                "Partial sync with locality counting on for every Service port vs off (median of "
                    + partialOn.size()
                    + " changes each over "
                    + rounds
                    + " alternating starts; min–max on "
                    + Row.ms(partialOn.min())
                    + "–"
                    + Row.ms(partialOn.max())
                    + ", off "
                    + Row.ms(partialOff.min())
                    + "–"
                    + Row.ms(partialOff.max())
                    + ")",
                size,
                partialOn.median(),
                partialOff.median(),
                Row::ms));
    var peakOff = new Stats(peaks.get(0));
    var peakOn = new Stats(peaks.get(1));
    var liveOff = new Stats(live.get(0));
    var liveOn = new Stats(live.get(1));
    harness
        .rows()
        .add(
            Row.countingCost(
                "Proxy peak RSS with locality counting on for every Service port vs off (median of "
                    + peakOn.size()
                    + " starts each; live heap after a forced full GC: on "
                    + String.format("%.0f", liveOn.median())
                    + " MiB, off "
                    + String.format("%.0f", liveOff.median())
                    + " MiB)",
                size,
                peakOn.median(),
                peakOff.median(),
                mib -> String.format("%.0f MiB", mib)));
  }

  /** The flags for one end: every port counted needs a cap above the cluster's series. */
  private static List<String> arguments(ObserveLocality mode, SyntheticCluster cluster) {
    return List.of(
        "--observe-locality=" + mode.name().toLowerCase(java.util.Locale.ROOT),
        "--observe-locality-max-series=" + Locality.values().length * cluster.serviceCount());
  }
}
