package dev.proxima.bench;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxy's footprint on a node at the sizes most clusters have: RSS and CPU time after its first
 * sync at 100, 1,000 and 10,000 Services (10 endpoints each), with the DaemonSet's JVM flags, and
 * the CPU time it spends on 1,000 endpoint changes. Goals: at most 80 MiB at 100 Services and 256
 * MiB at 10,000 × 10. A smoke run measures 100 Services only.
 */
final class FootprintBenchmark {
  static final int ENDPOINTS = 10;
  static final int CHANGES = 1000;

  private final Scale scale;
  private final Namespaces namespaces;
  private final Path work;
  private final Path proxyJar;
  private final List<Row> rows;

  FootprintBenchmark(Scale scale, Namespaces namespaces, Path work, Path proxyJar, List<Row> rows) {
    this.scale = scale;
    this.namespaces = namespaces;
    this.work = work;
    this.proxyJar = proxyJar;
    this.rows = rows;
  }

  /** The Service counts measured: the goal sizes, or the smallest alone in a smoke run. */
  List<Integer> sizes() {
    return scale.smoke() ? List.of(100) : List.of(100, 1000, 10000);
  }

  void run() throws Exception {
    for (int services : sizes()) {
      measure(services);
    }
  }

  private void measure(int services) throws Exception {
    var cluster = new SyntheticCluster(services, ENDPOINTS, "PreferSameZone");
    try (var api = new ApiServer()) {
      api.createAll(cluster.nodes());
      api.createAll(cluster.services());
      api.createAll(cluster.slices());
      try (var node = new ProxyNode(namespaces, "node-f", api, work, proxyJar)) {
        var proxy = node.startAndAwaitSync(List.of());
        node.awaitQuiet();
        var rss = proxy.rssAndPeakMiB();
        proxy.writeFootprint();
        double limit = services <= 100 ? 80 : 256;
        rows.add(
            Row.check(
                "Footprint: proxy RSS after the first sync (the manifest's JVM flags; peak "
                    + String.format("%.0f", rss[1])
                    + " MiB)",
                cluster.serviceCount() + " svc × " + ENDPOINTS + " ep",
                String.format("%.0f MiB", rss[0]),
                "-",
                "-",
                services <= 100 ? "peak ≤ 80 MiB" : services >= 10000 ? "peak ≤ 256 MiB" : "report",
                services > 100 && services < 10000 || rss[1] <= limit));
        rows.add(
            Row.check(
                "Footprint: proxy CPU time until the first sync, the JVM's start included",
                cluster.serviceCount() + " svc × " + ENDPOINTS + " ep",
                Row.ms(node.cpuAtFirstSync()),
                "-",
                "-",
                "report",
                true));
        double before = proxy.cpuMillis();
        changeEndpoints(api, cluster);
        node.awaitQuiet();
        double spent = proxy.cpuMillis() - before;
        rows.add(
            Row.check(
                "Footprint: proxy CPU time for "
                    + CHANGES
                    + " endpoint changes (slice updates adding endpoints, synced; includes the"
                    + " settling wait's idle ticks)",
                cluster.serviceCount() + " svc × " + ENDPOINTS + " ep",
                Row.ms(spent),
                "-",
                "-",
                "report",
                true));
      }
    }
  }

  /** Adds {@value #CHANGES} endpoints in all, spread over the Services' slices. */
  private static void changeEndpoints(ApiServer api, SyntheticCluster cluster) {
    int slices = Math.min(cluster.serviceCount(), CHANGES);
    int perSlice = (CHANGES + slices - 1) / slices;
    int added = 0;
    for (int i = 0; i < slices && added < CHANGES; i++) {
      var extra = new ArrayList<Endpoint>();
      for (int e = 0; e < perSlice && added < CHANGES; e++, added++) {
        extra.add(
            SyntheticCluster.endpoint(
                SyntheticCluster.ipv4(10 << 24 | 200 << 16, i * perSlice + e),
                SyntheticCluster.ZONES.get(0),
                SyntheticCluster.PROXY_NODE));
      }
      api.client()
          .discovery()
          .v1()
          .endpointSlices()
          .inNamespace(SyntheticCluster.NAMESPACE)
          .resource(cluster.slice(i, extra))
          .createOr(NonDeletingOperation::update);
    }
  }
}
