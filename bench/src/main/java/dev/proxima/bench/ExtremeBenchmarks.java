package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The extreme shapes, where upstream kube-proxy's nftables mode takes minutes: the packaged proxy
 * against a mock API server of its own per shape (cold full sync, partial sync against the same
 * run's 1,000-Service figure, restart with the rules present, peak RSS, the longest nft
 * transaction), and the controller at the first shape. Every nft run of the measured proxy is timed
 * by an {@link NftTimer} wrapper, which is how the longest transaction is measured and how the
 * restart's reads of the kernel table are seen.
 */
final class ExtremeBenchmarks {
  private static final double RSS_BOUND_MIB = 384;
  private static final double TRANSACTION_BOUND_MILLIS = 1000;

  private final Harness harness;
  private final Scale scale;
  private final Namespaces namespaces;
  private final Path work;
  private final List<Row> rows;

  ExtremeBenchmarks(Harness harness) {
    this.harness = harness;
    this.scale = harness.scale();
    this.namespaces = harness.namespaces();
    this.work = harness.work();
    this.rows = harness.rows();
  }

  void run() throws Exception {
    for (var shape : scale.extreme().shapes()) {
      // The controller is measured at 44,000 Services: the many-Services shape.
      runShape(shape, shape.endpoints() == 1);
    }
  }

  /** Upstream's reported full sync for the shape this one stands for, and where it was reported. */
  private static String anchor(Scale.Shape shape) {
    return shape.endpoints() == 1
        ? "upstream kube-proxy nftables: 16 min 44 s at 44,125 svc × 1 ep, kubernetes#139513"
        : "upstream kube-proxy nftables: 13 min 15 s at 5,006 svc × 250,011 ep, kubernetes#135639";
  }

  private static double coldBoundMillis(Scale.Shape shape) {
    return shape.endpoints() == 1 ? 10_000 : 15_000;
  }

  private void runShape(Scale.Shape shape, boolean withController) throws Exception {
    var cluster = new SyntheticCluster(shape.services(), shape.endpoints(), "PreferSameZone");
    String size = shape.text();
    int small = Math.min(scale.extreme().baselineServices(), shape.services());
    int changes = scale.extreme().changes();
    Progress.log("extreme shape " + size + ": filling the mock API server");
    try (var api = new ApiServer()) {
      var probe = new PartialSyncProbe(api, 194);
      long fillStarted = System.currentTimeMillis();
      api.createAll(cluster.nodes());
      var smallCluster = cluster.withServices(small);
      api.createAll(smallCluster.services());
      api.createAll(smallCluster.slices());

      // The same run's partial-sync figure at the baseline size, same endpoints per Service.
      PartialSyncProbe.Result smallPartial;
      List<NftTimer.Run> smallPartialRuns;
      var smallBare = namespaces.create("x-bare-s");
      // Timed by the same nft wrapper as the large node's, so the proxy's own nft runs compare.
      var smallTimer = new NftTimer(work, "x" + small + "x" + shape.endpoints() + "-small");
      try (var node =
          new ProxyNode(namespaces, "x-small", api, work, harness.proxyJar()).timing(smallTimer)) {
        var smallRules = new RenderedRules(smallCluster);
        Sh.run(Sh.in(smallBare, "nft", "-f", "-"), smallRules.fullScript())
            .orThrow(List.of("nft -f"));
        node.startAndAwaitSync(List.of());
        double smallFrom = System.currentTimeMillis();
        smallPartial = probe.measure(node, smallCluster, smallBare, smallRules, changes);
        smallPartialRuns = smallTimer.runs(smallFrom, System.currentTimeMillis());
      } finally {
        namespaces.delete(smallBare);
      }
      api.createAll(cluster.services().subList(small, cluster.serviceCount()));
      var slices =
          new java.util.ArrayList<>(cluster.slices().subList(small, cluster.serviceCount()));
      probe.takeChanged().forEach(index -> slices.add(cluster.slice(index)));
      api.createAll(slices);
      slices.clear();
      Progress.log(
          "extreme shape "
              + size
              + ": mock API server filled in "
              + Row.ms(System.currentTimeMillis() - fillStarted));

      long renderStarted = System.currentTimeMillis();
      var rules = new RenderedRules(cluster);
      double render = System.currentTimeMillis() - renderStarted;
      var bare = namespaces.create("x-bare");
      var timer = new NftTimer(work, "x" + shape.services() + "x" + shape.endpoints());
      var node = new ProxyNode(namespaces, "x-node", api, work, harness.proxyJar()).timing(timer);
      try {
        // Twice, into a fresh namespace each time: on a shared machine one load can take several
        // times the other.
        var bareLoads = new java.util.ArrayList<Double>();
        for (int round = 0; round < 2; round++) {
          if (round > 0) {
            namespaces.delete(bare);
            bare = namespaces.create("x-bare");
          }
          bareLoads.add(
              Sh.run(Sh.in(bare, "nft", "-f", "-"), rules.fullScript())
                  .orThrow(List.of("nft -f"))
                  .millis());
        }
        var bareStats = new Stats(bareLoads);
        double bareLoad = bareStats.min();
        String bareText =
            "nft -f " + Row.ms(bareStats.min()) + " (of 2: " + Row.ms(bareStats.max()) + ")";
        double terseList =
            Sh.run(Sh.in(bare, "nft", "-t", "list", "table", "ip", "proxima"), "")
                .orThrow(List.of("nft -t list"))
                .millis();
        double wholeList =
            Sh.run(Sh.in(bare, "nft", "list", "table", "ip", "proxima"), "")
                .orThrow(List.of("nft list"))
                .millis();
        Progress.log(
            String.format(
                "extreme shape %s: script %.1f MB rendered in %s; bare nft -f %s, nft -t list %s,"
                    + " nft list %s",
                size,
                rules.fullScript().length() / 1e6,
                Row.ms(render),
                Row.ms(bareLoad),
                Row.ms(terseList),
                Row.ms(wholeList)));

        // Cold full sync into an empty namespace.
        var proxy = node.startAndAwaitSync(List.of());
        double cold = node.firstSyncedAt() - proxy.startedMillis;
        double coldFullSync = node.fullSyncSeconds() * 1000;
        var coldRuns = timer.runs(proxy.startedMillis, node.firstSyncedAt());
        var coldLongest = NftTimer.longestTransaction(coldRuns);
        double main = proxy.loggedAt("Starting proxima-proxy").orElse(Double.NaN);
        double informers = proxy.loggedAt("Informers synced").orElse(Double.NaN);
        rows.add(
            Row.report(
                "Extreme: cold full sync, where the time goes",
                size,
                String.format(
                    "JVM start → proxy started %s; → informers synced %s; → rules loaded %s (full"
                        + " sync metric, plan+render+nft, both families: %s; its longest nft"
                        + " transaction %s); the harness renders the same %.1f MB script in %s",
                    Row.ms(main - proxy.startedMillis),
                    Row.ms(informers - main),
                    Row.ms(node.firstSyncedAt() - informers),
                    Row.ms(coldFullSync),
                    coldLongest == null ? "none" : Row.ms(coldLongest.millis()),
                    rules.fullScript().length() / 1e6,
                    Row.ms(render)),
                "-",
                "-"));
        double[] coldMemory = proxy.rssAndPeakMiB();

        // Partial syncs against the same run's figure at the baseline size.
        double partialFrom = System.currentTimeMillis();
        var partial = probe.measure(node, cluster, bare, rules, changes);
        var partialRuns = timer.runs(partialFrom, System.currentTimeMillis());
        double atLarge = partial.latencies().median();
        double atSmall = smallPartial.latencies().median();
        int missed = partial.missed() + smallPartial.missed();
        int unseen = partial.unseen() + smallPartial.unseen();
        rows.add(
            Row.check(
                "Extreme: partial sync, one endpoint changed → rule in kernel (median of "
                    + partial.latencies().size()
                    + ", min–max "
                    + Row.ms(partial.latencies().min())
                    + "–"
                    + Row.ms(partial.latencies().max())
                    + "; "
                    + small
                    + " svc: min–max "
                    + Row.ms(smallPartial.latencies().min())
                    + "–"
                    + Row.ms(smallPartial.latencies().max())
                    + "; where a change's time goes, "
                    + size
                    + " against "
                    + small
                    + " svc: bare nft -f of the delta "
                    + Row.ms(partial.bare().median())
                    + " against "
                    + Row.ms(smallPartial.bare().median())
                    + ", the proxy's own nft -f (wrapper included) "
                    + Row.ms(NftTimer.medianTransaction(partialRuns))
                    + " against "
                    + Row.ms(NftTimer.medianTransaction(smallPartialRuns))
                    + ")",
                size,
                Row.ms(atLarge),
                small + " svc × " + shape.endpoints() + " ep: " + Row.ms(atSmall),
                Row.ratio(atLarge, atSmall),
                "≤ 50 ms and ≤ 2×"
                    + (missed == 0 ? "" : "; " + missed + " changes never arrived")
                    + (unseen == 0
                        ? ""
                        : "; "
                            + unseen
                            + " in the kernel but never reported by nft monitor, untimed"),
                missed == 0 && atLarge <= 50 && atLarge <= 2 * atSmall));

        // Restart with the rules present.
        node.stopProxy();
        var restarted = node.startAndAwaitSync(List.of());
        // Its first sync is a full sync like a cold start's, beside the table the process left.
        double restartSync = node.firstSyncMillis();
        double restartTotal = node.firstSyncedAt() - restarted.startedMillis;
        var restartRuns = timer.runs(restarted.startedMillis, node.firstSyncedAt());
        var restartLongest = NftTimer.longestTransaction(restartRuns);
        // What the proxy read of the table: the names of its chains, sets and maps (`-t`, no
        // elements), the counting sets; a whole `nft list table` would be a read-back.
        var reads = restartRuns.stream().filter(r -> r.arguments().contains("list")).toList();
        boolean wholeRead =
            reads.stream()
                .anyMatch(
                    r ->
                        r.arguments().contains("list table ")
                            && !r.arguments().matches("(^|.* )-t( .*|$)"));
        String readText =
            reads.isEmpty()
                ? "no nft list"
                : reads.stream()
                    .map(r -> "`nft " + r.arguments() + "` " + Row.ms(r.millis()))
                    .collect(java.util.stream.Collectors.joining(", "));
        double[] restartMemory = restarted.rssAndPeakMiB();
        double peak = Math.max(coldMemory[1], restartMemory[1]);

        // More cold starts and restarts for the spread: at these sizes one start can take half as
        // long again as the next on a shared machine.
        var colds = new java.util.ArrayList<>(List.of(cold));
        var restarts = new java.util.ArrayList<>(List.of(restartTotal));
        for (int round = 1; round < scale.extreme().rounds(); round++) {
          node.forgetRules();
          var again = node.startAndAwaitSync(List.of());
          colds.add(node.firstSyncedAt() - again.startedMillis);
          peak = Math.max(peak, again.rssAndPeakMiB()[1]);
          node.stopProxy();
          var restartedAgain = node.startAndAwaitSync(List.of());
          restarts.add(node.firstSyncedAt() - restartedAgain.startedMillis);
          peak = Math.max(peak, restartedAgain.rssAndPeakMiB()[1]);
        }
        var coldStats = new Stats(colds);
        var restartStats = new Stats(restarts);
        rows.add(
            Row.check(
                "Extreme: cold full sync, proxy start → rules in an empty namespace ("
                    + spread(coldStats)
                    + "; "
                    + anchor(shape)
                    + ")",
                size,
                Row.ms(coldStats.median()),
                bareText,
                Row.ratio(coldStats.median(), bareLoad),
                "≤ " + Row.ms(coldBoundMillis(shape)),
                coldStats.median() <= coldBoundMillis(shape)));
        rows.add(
            Row.check(
                "Extreme: restart with rules present, proxy start → rules in ("
                    + spread(restartStats)
                    + "; the first restart's first sync "
                    + Row.ms(restartSync)
                    + ", built beside the table left, switched in one transaction; the proxy read "
                    + readText
                    + (wholeRead ? ": the whole table, elements included" : "")
                    + "; its longest transaction "
                    + text(restartLongest)
                    + ")",
                size,
                Row.ms(restartStats.median()),
                "cold start " + Row.ms(coldStats.median()),
                Row.ratio(restartStats.median(), coldStats.median()),
                "≤ the cold start; no whole read-back",
                restartStats.median() <= coldStats.median() && !wholeRead));
        rows.add(
            Row.check(
                String.format(
                    "Extreme: proxy RSS peak, the manifest's JVM flags (cold-started process:"
                        + " RSS %.0f MiB, peak %.0f MiB after its partial syncs; restarted"
                        + " process: RSS %.0f MiB, peak %.0f MiB)",
                    coldMemory[0], coldMemory[1], restartMemory[0], restartMemory[1]),
                size,
                String.format("%.0f MiB", peak),
                "-",
                "-",
                "peak ≤ 384 MiB",
                peak <= RSS_BOUND_MIB));
        var all = timer.runs();
        var longest = NftTimer.longestTransaction(all);
        var partialLongest = NftTimer.longestTransaction(partialRuns);
        rows.add(
            Row.check(
                "Longest single nft transaction (every `nft -f` of the proxy timed by a"
                    + " wrapper on its PATH, wrapper cost included; "
                    + all.stream().filter(NftTimer.Run::transaction).count()
                    + " transactions: cold "
                    + text(coldLongest)
                    + ", partial "
                    + text(partialLongest)
                    + ", restart "
                    + text(restartLongest)
                    + ")",
                size,
                text(longest),
                "bare " + bareText,
                longest == null ? "-" : Row.ratio(longest.millis(), bareLoad),
                "≤ 1 s",
                longest != null && longest.millis() <= TRANSACTION_BOUND_MILLIS));
      } finally {
        node.close();
        namespaces.delete(bare);
      }
      if (withController) {
        controller(api, cluster);
      }
    }
  }

  /** How many starts a figure is the median of, and their spread. */
  private static String spread(Stats stats) {
    return stats.size() == 1
        ? "one run"
        : "median of "
            + stats.size()
            + ", min–max "
            + Row.ms(stats.min())
            + "–"
            + Row.ms(stats.max());
  }

  private static String text(NftTimer.Run run) {
    return run == null ? "none" : Row.ms(run.millis());
  }

  /** The controller on the shape's cluster: start → every hint, writes per slice, RSS. */
  private void controller(ApiServer api, SyntheticCluster cluster) throws IOException {
    String size = cluster.serviceCount() + " svc × " + cluster.endpointsPerService() + " ep";
    var controllers = harness.controllers();
    int expected = ControllerBenchmarks.needingHints(cluster);
    long before = api.sliceWrites();
    try (var controller = controllers.startController(api, "30m")) {
      long doneAt =
          ControllerBenchmarks.awaitWrites(
              controller, api, before, expected, Duration.ofMinutes(20), "every hint at " + size);
      ControllerBenchmarks.awaitIdle(controller);
      long writes = api.sliceWrites() - before;
      long hinted = ControllerBenchmarks.hintedSlices(api);
      double[] memory = controller.rssAndPeakMiB();
      rows.add(
          Row.report(
              "Extreme: controller start → every hint written",
              size,
              Row.ms(doneAt - controller.startedMillis),
              "-",
              "-"));
      rows.add(
          ControllerBenchmarks.writesPerSlice(
              "Extreme: controller slice writes", size, writes, hinted, expected));
      rows.add(
          Row.check(
              String.format(
                  "Extreme: controller RSS peak, the manifest's JVM flags (RSS %.0f MiB once"
                      + " idle)",
                  memory[0]),
              size,
              String.format("%.0f MiB", memory[1]),
              "-",
              "-",
              "peak ≤ 384 MiB",
              memory[1] <= RSS_BOUND_MIB));
    }
  }
}
