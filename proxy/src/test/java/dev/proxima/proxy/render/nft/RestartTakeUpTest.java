package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.PlanStore;
import dev.proxima.proxy.runtime.Host;
import dev.proxima.proxy.runtime.NftDataPlane;
import dev.proxima.proxy.runtime.Proxier;
import dev.proxima.proxy.runtime.ProxyCache;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.SyncResult;
import dev.proxima.proxy.testing.CapturedLogs;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.proxy.track.ListedComparison;
import dev.proxima.proxy.track.ObjectVersions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted proxy whose Services and slices all still carry the resourceVersions its saved
 * ruleset was planned from, over the table that file describes, keeps the rules without planning or
 * loading anything; the sync after it plans every Service. Anything else that could make the plan
 * differ (an object written since, the node, the flags, the table) makes the first sync plan as
 * before.
 */
class RestartTakeUpTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ObjectKey API = new ObjectKey("shop", "api");

  @TempDir Path state;

  private final MutableClock clock = new MutableClock();
  private final FakeNftLoader kernel = new FakeNftLoader();
  private final Cache cache = new Cache();

  @RegisterExtension final CapturedLogs logs = new CapturedLogs("dev.proxima.proxy.runtime");

  private final List<SyncResult> results = new ArrayList<>();
  private long nextVersion = 100;

  /** Fixed objects standing in for the informer caches, each write with a new resourceVersion. */
  private final class Cache implements ProxyCache {
    final List<Service> services = new ArrayList<>();
    final List<EndpointSlice> slices = new ArrayList<>();
    Node node = ClusterObjects.node("node-a", "zone-a");
    List<String> serviceCidrs = List.of();

    @Override
    public List<String> serviceCidrs() {
      return serviceCidrs;
    }

    void put(Service service) {
      service.getMetadata().setResourceVersion(String.valueOf(nextVersion++));
      services.removeIf(s -> s.getMetadata().getName().equals(service.getMetadata().getName()));
      services.add(service);
    }

    void put(EndpointSlice slice) {
      slice.getMetadata().setResourceVersion(String.valueOf(nextVersion++));
      slices.removeIf(s -> s.getMetadata().getName().equals(slice.getMetadata().getName()));
      slices.add(slice);
    }

    @Override
    public boolean hasSynced() {
      return true;
    }

    @Override
    public Collection<Service> services() {
      return List.copyOf(services);
    }

    @Override
    public Collection<EndpointSlice> endpointSlices() {
      return List.copyOf(slices);
    }

    @Override
    public Service service(ObjectKey key) {
      return services.stream()
          .filter(s -> s.getMetadata().getName().equals(key.name()))
          .findFirst()
          .orElse(null);
    }

    @Override
    public List<EndpointSlice> slicesOf(ObjectKey key) {
      return slices.stream()
          .filter(s -> s.getMetadata().getName().startsWith(key.name() + "-"))
          .toList();
    }

    @Override
    public Set<ObjectKey> drainChangedServices() {
      return Set.of();
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public List<Instant> drainTriggerTimes(IpFamily family) {
      return List.of();
    }

    @Override
    public List<String> nodeAddresses() {
      return List.of("192.168.0.11");
    }
  }

  @BeforeEach
  void objects() {
    cache.put(ClusterObjects.service("shop", "web", "10.96.0.10"));
    cache.put(ClusterObjects.service("shop", "api", "10.96.0.11"));
    cache.put(ClusterObjects.slice("shop", "web", "node-b", "10.244.1.5"));
    cache.put(ClusterObjects.slice("shop", "api", "node-b", "10.244.2.5"));
  }

  /** A proxier as a new process starts it: a new data plane over the same kernel and state. */
  private Proxier start() {
    return start(ProxyConfig.defaults("node-a"));
  }

  private Proxier start(ProxyConfig config) {
    return start(config, ListedComparison.none());
  }

  private Proxier start(ProxyConfig config, ListedComparison listed) {
    var metrics = new ProxyMetrics(new PrometheusRegistry(), ProxyMode.nftables);
    var plane = new NftDataPlane(IpFamily.IPV4, config.rules(), kernel, metrics, clock, state);
    var proxier =
        new Proxier(
            IpFamily.IPV4,
            config,
            cache,
            plane,
            Host.none(),
            metrics,
            new ProxyHealth(clock, Duration.ofSeconds(60)),
            clock,
            new PlanStore(IpFamily.IPV4, config.nodeName()));
    proxier.subscribe(results::add);
    plane.starting(listed);
    return proxier;
  }

  /** The first sync of a restarted proxier, with what its informers compared as they listed. */
  private boolean firstSync(Proxier restarted, ListedComparison listed) {
    return restarted.sync(
        Set.of(),
        List.of(),
        () -> new ObjectVersions.Snapshot(cache.services(), cache.endpointSlices(), listed));
  }

  private void listEveryObject(ListedComparison listed) {
    cache.services().forEach(listed::serviceListed);
    cache.endpointSlices().forEach(listed::sliceListed);
  }

  @Test
  void theFirstSyncKeepsTheRulesOnTheComparisonMadeAsTheInformersListed() {
    start().sync(Set.of());
    var listed = new ListedComparison();
    listEveryObject(listed);

    var restarted = start(ProxyConfig.defaults("node-a"), listed);

    assertThat(firstSync(restarted, listed)).isTrue();
    assertThat(tookUp()).isTrue();
    assertThat(logs.lines()).anyMatch(line -> line.contains("comparedWhileListing=true"));
  }

  @Test
  void aDifferenceFoundAsTheInformersListedMakesTheFirstSyncPlan() {
    start().sync(Set.of());
    var listed = new ListedComparison();
    // The informers handed on an object of another revision than the file's.
    var rewritten = ClusterObjects.service("shop", "web", "10.96.0.10");
    rewritten.getMetadata().setResourceVersion("999");
    listed.serviceListed(rewritten);
    cache.services().stream()
        .filter(s -> !s.getMetadata().getName().equals("web"))
        .forEach(listed::serviceListed);
    cache.endpointSlices().forEach(listed::sliceListed);

    var restarted = start(ProxyConfig.defaults("node-a"), listed);

    assertThat(firstSync(restarted, listed)).isTrue();
    assertThat(tookUp()).isFalse();
    assertThat(lastResult().plan()).as("the first sync planned").isNotNull();
  }

  private boolean tookUp() {
    return logs.lines().stream()
        .anyMatch(line -> line.contains("no Service changed; keeping its rules"));
  }

  private SyncResult lastResult() {
    return results.get(results.size() - 1);
  }

  @Test
  void aRestartWithEveryObjectUnchangedKeepsTheRulesWithoutPlanningAndPlansOnTheNextSync() {
    assertThat(start().sync(Set.of())).isTrue();
    var table = kernel.nft.list();
    int loads = kernel.loaded.size();
    int readBacks = kernel.readBacks;

    var restarted = start();
    assertThat(restarted.sync(Set.of())).isTrue();

    assertThat(tookUp()).isTrue();
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    assertThat(lastResult().plan()).as("nothing was planned").isNull();
    assertThat(lastResult().decision().full()).isTrue();
    assertThat(restarted.planPending()).isTrue();
    assertThat(restarted.lastPlan()).isNull();
    assertThat(restarted.published().state().waitingFor()).startsWith("its plan");
    assertThat(kernel.loaded).hasSize(loads);
    assertThat(kernel.readBacks).as("no nft -t list table").isEqualTo(readBacks);

    assertThat(restarted.sync(Set.of())).isTrue();

    assertThat(lastResult().decision().reason().label()).isEqualTo("plan-after-take-up");
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    assertThat(restarted.planPending()).isFalse();
    assertThat(restarted.lastPlan().ports()).hasSize(2);
    assertThat(restarted.published().state().waitingFor()).isNull();
    assertThat(kernel.loaded).as("the plan agreed with the kept rules").hasSize(loads);
    assertThat(kernel.nft.list()).isEqualTo(table);
  }

  @Test
  void theKernelsMarkerIsReadOnceWhileTheInformersListNotAgainByTheFirstSync() {
    start().sync(Set.of());
    int before = kernel.markerReads.get();

    var restarted = start();
    assertThat(restarted.sync(Set.of())).isTrue();

    assertThat(tookUp()).isTrue();
    assertThat(kernel.markerReads.get() - before)
        .as("the read that starting() began, which the take-up waited for")
        .isEqualTo(1);
  }

  @Test
  void aTableFlushedAfterTheMarkerWasReadIsRebuiltByThePlanThatFollowsTheTakeUp() {
    start().sync(Set.of());
    int checks = kernel.referenceChecks.get();
    var restarted = start();
    await().atMost(Duration.ofSeconds(10)).until(() -> kernel.referenceChecks.get() > checks);
    kernel.nft.apply("flush table ip proxima\n");

    assertThat(restarted.sync(Set.of())).isTrue();
    assertThat(tookUp()).as("the marker was read before the flush").isTrue();
    assertThat(restarted.planPending()).isTrue();

    assertThat(restarted.sync(Set.of())).isTrue();
    assertThat(lastResult().decision().reason().label()).isEqualTo("plan-after-take-up");
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.LOADED);
    assertThat(kernel.nft.list()).contains("10.244.1.5");
  }

  @Test
  void aFirstSyncThatPlansReadsTheMarkerAgainSoATableFlushedSinceTheListIsRebuilt() {
    start().sync(Set.of());
    int wholeTable = lastResult().rulesLoaded();
    cache.put(ClusterObjects.slice("shop", "web", "node-b", "10.244.1.9"));
    int checks = kernel.referenceChecks.get();
    var restarted = start();
    await().atMost(Duration.ofSeconds(10)).until(() -> kernel.referenceChecks.get() > checks);
    kernel.nft.apply("flush table ip proxima\n");

    assertThat(restarted.sync(Set.of())).isTrue();

    assertThat(tookUp()).isFalse();
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.LOADED);
    assertThat(lastResult().rulesLoaded())
        .as("every rule loaded again, not only the changed Service's")
        .isGreaterThanOrEqualTo(wholeTable);
    assertThat(kernel.nft.list()).contains("10.244.1.9");
  }

  @Test
  void anEndpointMovedWhileTheProxyWasDownIsPlannedAndLoadedByTheFirstSync() {
    start().sync(Set.of());
    cache.put(ClusterObjects.slice("shop", "web", "node-b", "10.244.1.9"));

    var restarted = start();
    restarted.sync(Set.of());

    assertThat(tookUp()).isFalse();
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.LOADED);
    assertThat(restarted.planPending()).isFalse();
    assertThat(kernel.nft.list()).contains("10.244.1.9").doesNotContain("10.244.1.5");
    assertThat(logs.lines())
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Services changed since the saved ruleset")
                    .contains("changedServices=1"));
  }

  @Test
  void aServiceRewrittenWithTheSameSpecCostsTheShortcutButLoadsNothing() {
    start().sync(Set.of());
    int loads = kernel.loaded.size();
    cache.put(ClusterObjects.service("shop", "api", "10.96.0.11"));

    start().sync(Set.of());

    assertThat(tookUp()).isFalse();
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    assertThat(kernel.loaded).hasSize(loads);
  }

  @Test
  void aServiceDeletedOrCreatedWhileTheProxyWasDownIsPlanned() {
    start().sync(Set.of());
    cache.services.removeIf(s -> s.getMetadata().getName().equals("api"));

    start().sync(Set.of());
    assertThat(tookUp()).isFalse();
    assertThat(kernel.nft.list()).doesNotContain("10.96.0.11");

    cache.put(ClusterObjects.service("shop", "db", "10.96.0.12"));
    start().sync(Set.of());
    assertThat(tookUp()).isFalse();
    assertThat(kernel.nft.list()).contains("10.96.0.12");
  }

  @Test
  void thePartialSyncsOfTheEarlierProcessAreRecordedSoItsSuccessorTakesUp() {
    var first = start();
    first.sync(Set.of());
    cache.put(ClusterObjects.slice("shop", "web", "node-b", "10.244.1.9"));
    first.sync(Set.of(WEB));
    // Rewritten with nothing the rules read changed: planned, nothing loaded, still recorded.
    cache.put(ClusterObjects.service("shop", "api", "10.96.0.11"));
    first.sync(Set.of(API));
    var table = kernel.nft.list();
    int loads = kernel.loaded.size();
    int readBacks = kernel.readBacks;

    var restarted = start();
    restarted.sync(Set.of());

    assertThat(tookUp()).isTrue();
    restarted.sync(Set.of());
    assertThat(kernel.loaded).hasSize(loads);
    assertThat(kernel.nft.list()).isEqualTo(table).contains("10.244.1.9");
  }

  @Test
  void aNodeInAnotherZoneOrOtherFlagsMakeTheFirstSyncPlan() {
    start().sync(Set.of());
    cache.node = ClusterObjects.node("node-a", "zone-b");

    start().sync(Set.of());
    assertThat(tookUp()).isFalse();
    assertThat(logs.lines())
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("planned for other settings")
                    .contains("the node, the proxy's flags or its version"));

    logs.clear();
    var config = ProxyConfig.defaults("node-a");
    var otherProxyName =
        new ProxyConfig(
            config.nodeName(),
            config.rules(),
            config.minSyncPeriod(),
            config.syncPeriod(),
            config.fullSyncPeriod(),
            "other-proxy");
    start(otherProxyName).sync(Set.of());
    assertThat(tookUp()).isFalse();
  }

  @Test
  void aFlushedTableIsRebuiltWhateverTheObjectsSay() {
    start().sync(Set.of());
    kernel.nft.apply("flush table ip proxima\n");

    start().sync(Set.of());

    assertThat(tookUp()).isFalse();
    assertThat(lastResult().outcome()).isEqualTo(SyncResult.Outcome.LOADED);
    assertThat(kernel.nft.list()).contains("10.244.1.5");
  }

  @Test
  void objectsWithoutAResourceVersionAreNeverTakenAsUnchanged() {
    cache.services.forEach(s -> s.getMetadata().setResourceVersion(null));
    start().sync(Set.of());

    start().sync(Set.of());

    assertThat(tookUp()).isFalse();
  }

  @Test
  void bothFamiliesServiceCidrsAsTheClusterWritesThemStillMatchWhatTheTableLoaded() {
    // The ServiceCIDR objects hold both families, and a range need not be written canonically.
    cache.serviceCidrs = List.of("10.96.0.1/12", "fd00::/108", "10.96.4.0/24");
    start().sync(Set.of());

    start().sync(Set.of());
    assertThat(tookUp()).isTrue();

    logs.clear();
    cache.serviceCidrs = List.of("10.96.0.0/12", "10.120.0.0/16");
    start().sync(Set.of());
    assertThat(tookUp()).isFalse();
    assertThat(logs.lines()).anySatisfy(line -> assertThat(line).contains("the Service CIDRs"));
  }
}
