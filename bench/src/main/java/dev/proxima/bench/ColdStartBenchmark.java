package dev.proxima.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Time to program a new node alone ({@code ./bench.sh --cold[=starts]}): the packaged proxy started
 * cold, as the image starts it, into fresh namespaces against the mock API server holding the
 * full-size cluster, several times, with where each start's time went. A quicker loop than the
 * whole proxy section for trying startup changes; the full run's rows come from {@link
 * ProxyBenchmarks}.
 */
final class ColdStartBenchmark {
  /** One start's phases, in milliseconds. */
  record Phases(
      double total,
      double jvm,
      double informers,
      double render,
      double nft,
      double after,
      double cpu) {
    @Override
    public String toString() {
      return String.format(
          "total %.0f ms (proxy CPU %.0f ms): JVM %.0f, informers %.0f, plan+pass %.0f, nft"
              + " %.0f, after %.0f",
          total, cpu, jvm, informers, render, nft, after);
    }
  }

  private final Harness harness;
  private final ApiServer api;
  private final int starts;

  ColdStartBenchmark(Harness harness, ApiServer api, int starts) {
    this.harness = harness;
    this.api = api;
    this.starts = starts;
  }

  void run() throws Exception {
    int services = harness.scale().coldServices();
    var cluster = new SyntheticCluster(services, 2, "PreferSameZone");
    api.createAll(cluster.nodes());
    api.createAll(cluster.services());
    api.createAll(cluster.slices());
    var phases = new ArrayList<Phases>();
    for (int r = 0; r < starts; r++) {
      phases.add(start("cold-" + r, List.of()));
      Progress.log("cold start " + r + ": " + phases.get(r));
    }
    String size = services + " svc × 2 ep";
    var totals = new Stats(phases.stream().map(Phases::total).toList());
    harness.rows().add(Row.coldSync(totals, size));
    harness
        .rows()
        .add(
            Row.report(
                "Cold full sync, where the time goes (medians, min–max)",
                size,
                text(phases),
                "-",
                "-"));
  }

  private Phases start(String suffix, List<String> extraFlags) throws java.io.IOException {
    var timer = new NftTimer(harness.work(), suffix);
    try (var node =
        new ProxyNode(harness.namespaces(), suffix, api, harness.work(), harness.proxyJar())
            .timing(timer)) {
      var proxy = node.startAndAwaitSync(extraFlags);
      return phases(proxy, node, timer);
    }
  }

  /**
   * JVM start → the proxy's first log line (JVM, logging and client setup); → informers synced
   * (listing and decoding); → the first {@code nft -f} starts (planning and rendering); that load;
   * → both families synced (the IPv6 family's own sync and the metric's update).
   */
  private static Phases phases(JarProcess proxy, ProxyNode node, NftTimer timer) {
    double started = proxy.startedMillis;
    double main = proxy.loggedAt("Starting proxima-proxy").orElse(Double.NaN);
    double informers = proxy.loggedAt("Informers synced").orElse(Double.NaN);
    double synced = node.firstSyncedAt();
    var load =
        timer.runs(informers, synced).stream()
            .filter(NftTimer.Run::transaction)
            .findFirst()
            .orElse(null);
    double loadStart = load == null ? Double.NaN : load.startMillis();
    double loadEnd = load == null ? Double.NaN : load.endMillis();
    return new Phases(
        synced - started,
        main - started,
        informers - main,
        loadStart - informers,
        loadEnd - loadStart,
        synced - loadEnd,
        node.cpuAtFirstSync());
  }

  private static String text(List<Phases> phases) {
    var parts = new LinkedHashMap<String, Stats>();
    parts.put("proxy CPU time until synced", stats(phases, Phases::cpu));
    parts.put("JVM start → first log line", stats(phases, Phases::jvm));
    parts.put("→ informers synced", stats(phases, Phases::informers));
    parts.put(
        "→ first nft -f (plan, shared-chain pass; the render overlaps the loads)",
        stats(phases, Phases::render));
    parts.put("nft -f", stats(phases, Phases::nft));
    parts.put("→ both families synced", stats(phases, Phases::after));
    var out = new StringBuilder();
    for (Map.Entry<String, Stats> part : parts.entrySet()) {
      if (!out.isEmpty()) {
        out.append("; ");
      }
      out.append(part.getKey())
          .append(' ')
          .append(Row.ms(part.getValue().median()))
          .append(" (")
          .append(Row.ms(part.getValue().min()))
          .append("–")
          .append(Row.ms(part.getValue().max()))
          .append(')');
    }
    return out.toString();
  }

  private static Stats stats(
      List<Phases> phases, java.util.function.ToDoubleFunction<Phases> phase) {
    return new Stats(phases.stream().map(p -> phase.applyAsDouble(p)).toList());
  }
}
