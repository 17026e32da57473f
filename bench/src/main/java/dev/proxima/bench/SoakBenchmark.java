package dev.proxima.bench;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The soak: the proxy and the controller under steady churn, side by side against one mock API
 * server. Endpoints are replaced (each new address written without hints, as the EndpointSlice
 * controller writes it, so the controller hints it again) and Services are created and deleted at
 * fixed rates. Memory, live heap and threads after the first sync are compared with the end, and
 * the proxy's table at the end with a fresh render of what the API server then holds.
 */
final class SoakBenchmark {
  private final Harness harness;
  private final Scale scale;
  private final Namespaces namespaces;
  private final Path work;
  private final List<Row> rows;

  SoakBenchmark(Harness harness) {
    this.harness = harness;
    this.scale = harness.scale();
    this.namespaces = harness.namespaces();
    this.work = harness.work();
    this.rows = harness.rows();
  }

  /** RSS, live heap after a forced full collection (MiB) and threads of one process, at a time. */
  private record Snapshot(double rss, double liveHeap, int threads) {
    static Snapshot of(JarProcess process) {
      var afterGc = process.rssAndLiveHeapAfterFullGc();
      return new Snapshot(afterGc[0], afterGc[1], process.threads());
    }
  }

  /** What the churn did. */
  private record Churn(
      int endpointChanges,
      int servicesCreated,
      int servicesDeleted,
      int conflicts,
      double seconds) {}

  void run() throws Exception {
    var soak = scale.soak();
    var cluster = new SyntheticCluster(soak.services(), 2, "PreferSameZone");
    String size = cluster.serviceCount() + " svc × 2 ep";
    try (var api = new ApiServer()) {
      api.createAll(cluster.nodes());
      api.createAll(cluster.services());
      api.createAll(cluster.slices());
      var controllers = harness.controllers();
      int expected = ControllerBenchmarks.needingHints(cluster);
      try (var node = new ProxyNode(namespaces, "soak", api, work, harness.proxyJar());
          var controller = controllers.startController(api, "30m")) {
        var proxy = node.startAndAwaitSync(List.of());
        controller.await(
            "controller hints every slice before the soak",
            Duration.ofMinutes(10),
            () -> api.sliceWrites() >= expected);
        ControllerBenchmarks.awaitIdle(controller);
        node.awaitQuiet();
        var proxyStart = Snapshot.of(proxy);
        var controllerStart = Snapshot.of(controller);
        double fullSyncsBefore = node.fullSyncs();
        long writesBefore = api.sliceWrites();
        long watchesBefore = api.watchesOpened();
        Progress.log(
            "soak: "
                + soak.minutes()
                + " minutes of churn at "
                + size
                + "; proxy "
                + proxyStart
                + ", controller "
                + controllerStart);
        var churn = churn(api, cluster, soak, List.of(proxy, controller));
        ControllerBenchmarks.awaitIdle(controller);
        node.awaitQuiet();
        var proxyEnd = Snapshot.of(proxy);
        var controllerEnd = Snapshot.of(controller);
        double fullSyncs = node.fullSyncs() - fullSyncsBefore;
        long controllerWrites = api.sliceWrites() - writesBefore - churn.endpointChanges();
        String churnText =
            String.format(
                "%.1f min: %d endpoints replaced (%.1f/s), %d Services created and %d deleted,"
                    + " %d write conflicts retried",
                churn.seconds() / 60,
                churn.endpointChanges(),
                churn.endpointChanges() / churn.seconds(),
                churn.servicesCreated(),
                churn.servicesDeleted(),
                churn.conflicts());
        rows.add(
            Row.report(
                "Soak: churn applied (target rate "
                    + soak.endpointChangesPerSecond()
                    + " endpoint replacements/s, one Service created and one deleted every "
                    + soak.serviceEverySeconds()
                    + " s)",
                size,
                churnText
                    + String.format(
                        "; the proxy ran %.0f full syncs meanwhile; the controller wrote about %d"
                            + " slices; watches opened again %d times (fabric8 ends each after 5 to"
                            + " 10 minutes; the mock sends the deletions since the version each"
                            + " starts from, see IndexedCrudDispatcher)",
                        fullSyncs, controllerWrites, api.watchesOpened() - watchesBefore),
                "-",
                "-"));
        rows.add(memoryRow("proxy", size, proxyStart, proxyEnd));
        rows.add(memoryRow("controller", size, controllerStart, controllerEnd));
        kernelMatchesFreshRender(api, cluster, node, size);
      }
    }
  }

  private static Row memoryRow(String who, String size, Snapshot start, Snapshot end) {
    double rssRatio = end.rss() / start.rss();
    double heapRatio = end.liveHeap() / start.liveHeap();
    boolean threadsFlat = end.threads() <= 1.1 * start.threads();
    return Row.check(
        String.format(
            "Soak: %s RSS after a forced full GC, end vs after the first sync (live heap"
                + " %.1f → %.1f MiB, %.2f×; threads %d → %d)",
            who, start.liveHeap(), end.liveHeap(), heapRatio, start.threads(), end.threads()),
        size,
        String.format("%.0f MiB", end.rss()),
        String.format("after the first sync %.0f MiB", start.rss()),
        Row.ratio(end.rss(), start.rss()),
        "RSS and live heap ≤ 1.1×; threads ≤ 1.1×",
        rssRatio <= 1.1 && heapRatio <= 1.1 && threadsFlat);
  }

  /**
   * Replaces endpoints and creates and deletes Services at the soak's rates for its minutes, one
   * write at a time; a write that loses to the controller's (409) is read again and retried.
   */
  private Churn churn(
      ApiServer api, SyntheticCluster cluster, Scale.Soak soak, List<JarProcess> watched) {
    var random = new Random(18);
    var live = new ArrayList<Integer>();
    for (int i = 0; i < cluster.serviceCount(); i++) {
      live.add(i);
    }
    int nextService = cluster.serviceCount();
    int endpointChanges = 0;
    int serviceChanges = 0;
    int deleted = 0;
    int[] conflicts = {0};
    long started = System.currentTimeMillis();
    long end = started + (long) (soak.minutes() * 60_000);
    long lastReport = started;
    var client = api.client();
    while (System.currentTimeMillis() < end) {
      double elapsed = (System.currentTimeMillis() - started) / 1000.0;
      if (endpointChanges >= elapsed * soak.endpointChangesPerSecond()
          && serviceChanges >= elapsed / soak.serviceEverySeconds()) {
        JarProcess.pause(20);
        continue;
      }
      if (serviceChanges < elapsed / soak.serviceEverySeconds()) {
        serviceChanges++;
        int created = nextService++;
        client.resource(cluster.service(created)).create();
        client.resource(cluster.slice(created)).create();
        int gone = live.remove(random.nextInt(live.size()));
        live.add(created);
        client.resource(cluster.service(gone)).delete();
        client.resource(cluster.slice(gone)).delete();
        deleted++;
      } else {
        endpointChanges++;
        int index = live.get(random.nextInt(live.size()));
        var ip = SyntheticCluster.ipv4(10 << 24 | 195 << 16, endpointChanges);
        replaceEndpoint(api, index, random.nextInt(cluster.endpointsPerService()), ip, conflicts);
      }
      if (System.currentTimeMillis() - lastReport > 60_000) {
        lastReport = System.currentTimeMillis();
        for (var process : watched) {
          if (!process.alive()) {
            throw new HarnessError("a process died during the soak:\n" + process.tail());
          }
        }
        Progress.log(
            String.format(
                "soak: %.1f min, %d endpoint changes, %d Service changes",
                (lastReport - started) / 60_000.0, endpointChanges, serviceChanges));
      }
    }
    return new Churn(
        endpointChanges,
        serviceChanges,
        deleted,
        conflicts[0],
        (System.currentTimeMillis() - started) / 1000.0);
  }

  private static void replaceEndpoint(
      ApiServer api, int index, int position, String ip, int[] conflicts) {
    var slices =
        api.client().discovery().v1().endpointSlices().inNamespace(SyntheticCluster.NAMESPACE);
    var name = SyntheticCluster.serviceName(index) + "-abcde";
    for (int attempt = 0; attempt < 5; attempt++) {
      EndpointSlice slice = slices.withName(name).get();
      if (slice == null) {
        return;
      }
      var endpoint = slice.getEndpoints().get(position);
      endpoint.setAddresses(List.of(ip));
      // A new pod's endpoint arrives without hints; the controller writes them.
      endpoint.setHints(null);
      try {
        slices.resource(slice).update();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        conflicts[0]++;
      }
    }
    throw new HarnessError("could not update slice " + name + " in five attempts");
  }

  /** The proxy's table against a fresh render of what the API server holds now. */
  private void kernelMatchesFreshRender(
      ApiServer api, SyntheticCluster cluster, ProxyNode node, String size) {
    var client = api.client();
    var services = client.services().inNamespace(SyntheticCluster.NAMESPACE).list().getItems();
    var slices =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(SyntheticCluster.NAMESPACE)
            .list()
            .getItems();
    var fresh = RenderedRules.asRunning(cluster, services, slices, List.of(node.nodeAddress));
    var freshNamespace = namespaces.create("soak-fresh");
    try {
      Sh.run(Sh.in(freshNamespace, "nft", "-f", "-"), fresh.fullScript())
          .orThrow(List.of("nft -f"));
      var expected =
          KernelListing.programmed(
              Sh.run(Sh.in(freshNamespace, "nft", "list", "table", "ip", "proxima"), "")
                  .orThrow(List.of("nft list"))
                  .output());
      var actual =
          KernelListing.programmed(
              Sh.run(Sh.in(node.namespace, "nft", "list", "table", "ip", "proxima"), "")
                  .orThrow(List.of("nft list"))
                  .output());
      var difference = KernelListing.difference(actual, expected);
      int elements = expected.values().stream().mapToInt(List::size).sum();
      rows.add(
          Row.check(
              "Soak: the proxy's table at the end equals a fresh render of the API server's"
                  + " objects (sets, maps and chains compared as sorted statements and elements,"
                  + " empty chains left out; "
                  + services.size()
                  + " Services, "
                  + elements
                  + " statements and elements)",
              size,
              difference.isEmpty() ? "equal" : "differs: " + difference,
              "-",
              "-",
              "equal",
              difference.isEmpty()));
    } finally {
      namespaces.delete(freshNamespace);
    }
  }
}
