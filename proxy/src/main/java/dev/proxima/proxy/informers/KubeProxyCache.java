package dev.proxima.proxy.informers;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.cli.DaemonThreads;
import dev.proxima.informers.CompactingItemStore;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.explain.LiveExplain;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Informers on Services, on EndpointSlices carrying the service-name label, and on the Nodes. Of
 * the other Nodes only the addresses matter ({@link ClusterNodeAddresses}), so an update that
 * changes none (a heartbeat) asks for no sync. Handlers only feed the change trackers and ask the
 * {@link Listener} for a sync.
 *
 * <p>The first list's additions are not changes: the first sync, always full, plans every Service
 * from the stores; passed on, they made a partial sync re-plan most of the cluster right after.
 */
public final class KubeProxyCache implements ProxyCache, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeProxyCache.class);
  private static final String BY_SERVICE = "byService";

  private static final Duration START_WAIT = Duration.ofSeconds(5);

  private final List<CompletableFuture<?>> starting = new CopyOnWriteArrayList<>();
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final SharedIndexInformer<Node> nodes;
  private final String nodeName;

  /** Rebuilt from the store only when {@link #nodeAddressesChanged}, not on every Node update. */
  private ClusterNodeAddresses clusterNodeAddresses = ClusterNodeAddresses.NONE;

  private volatile boolean nodeAddressesChanged = true;

  /** Not waited for: a cluster without the API (404) or without objects drops nothing. */
  private final SharedIndexInformer<ServiceCIDR> serviceCidrObjects;

  private final ZoneDemandWatch zoneDemand;

  private final PendingChanges changes;

  /** What the cache reports; implementations must only record and request a sync. */
  public interface Listener {
    void serviceEvent(int pendingServices);

    void endpointsEvent(int pendingSlices);

    /** Also when a ServiceCIDR came, changed or went: the rules need a sync then too. */
    void nodeEvent();
  }

  /** A null {@code zoneDemandNamespace} watches none: the demand stays unknown. */
  public KubeProxyCache(
      KubernetesClient client,
      String nodeName,
      Duration resync,
      PendingChanges changes,
      Listener listener,
      String zoneDemandNamespace) {
    // A new demand concerns only the Services that opted in: they alone are planned again.
    this.zoneDemand =
        zoneDemandNamespace == null
            ? null
            : new ZoneDemandWatch(
                client,
                zoneDemandNamespace,
                resync,
                () -> {
                  changes.touched(ZoneDemandWatch.optedIn(services()));
                  listener.serviceEvent(changes.pendingServices());
                });
    this.changes = changes;
    this.nodeName = nodeName;
    long resyncMillis = resync.toMillis();
    services = client.services().inAnyNamespace().runnableInformer(resyncMillis);
    slices =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .withLabel(Labels.SERVICE_NAME)
            .runnableInformer(resyncMillis);
    nodes = client.nodes().runnableInformer(resyncMillis);
    serviceCidrObjects = client.resources(ServiceCIDR.class).runnableInformer(resyncMillis);
    services.itemStore(new CompactingItemStore<>(ProxyCacheTrim::service));
    slices.itemStore(new CompactingItemStore<>(ProxyCacheTrim::slice));
    nodes.itemStore(new CompactingItemStore<>(ProxyCacheTrim::node));
    slices.addIndexers(
        Map.of(
            BY_SERVICE,
            slice -> {
              var labels = slice.getMetadata().getLabels();
              var name = labels == null ? null : labels.get(Labels.SERVICE_NAME);
              return name == null || name.isEmpty()
                  ? List.of()
                  : List.of(slice.getMetadata().getNamespace() + "/" + name);
            }));
    services.addEventHandler(
        handler(
            true,
            (previous, current) -> {
              var key = keyOf(current != null ? current : previous);
              listener.serviceEvent(changes.serviceChanged(key, previous, current));
            }));
    slices.addEventHandler(
        handler(
            true,
            (previous, current) -> {
              var object = current != null ? current : previous;
              changes
                  .sliceChanged(keyOf(object), previous, current)
                  .ifPresent(
                      malformed ->
                          log.atDebug()
                              .addKeyValue("value", malformed)
                              .log("Ignoring a malformed last-change-trigger-time"));
              listener.endpointsEvent(changes.pendingSlices());
            }));
    nodes.addEventHandler(
        handler(
            true,
            (previous, current) -> {
              var addressesChanged = ClusterNodeAddresses.changes(previous, current);
              if (addressesChanged) {
                nodeAddressesChanged = true;
              }
              var name = (current != null ? current : previous).getMetadata().getName();
              if (addressesChanged || nodeName.equals(name)) {
                listener.nodeEvent();
              }
            }));
    // Its first list is not waited for, and may come after the first sync: every addition counts.
    serviceCidrObjects.addEventHandler(
        handler(
            false,
            (ServiceCIDR previous, ServiceCIDR current) -> {
              var before = previous == null ? null : cidrsOf(previous);
              var after = current == null ? null : cidrsOf(current);
              if (!java.util.Objects.equals(before, after)) {
                listener.nodeEvent();
              }
            }));
    var api = client.getMasterUrl().toString().replaceAll("/+$", "");
    services.exceptionHandler(ApiServerFailures.retryingInformer(log, api + "/api/v1/services"));
    slices.exceptionHandler(
        ApiServerFailures.retryingInformer(log, api + "/apis/discovery.k8s.io/v1/endpointslices"));
    nodes.exceptionHandler(ApiServerFailures.retryingInformer(log, api + "/api/v1/nodes"));
    var serviceCidrsUrl = api + "/apis/networking.k8s.io/v1/servicecidrs";
    var retrying = ApiServerFailures.retryingInformer(log, serviceCidrsUrl);
    serviceCidrObjects.exceptionHandler(
        (started, failure) -> {
          // fabric8 reports the 404 wrapped, so it is looked for among the causes.
          if (ApiServerFailures.statusCode(failure) == 404) {
            // Older clusters do not serve the API: say so once and stop asking.
            log.atInfo()
                .addKeyValue("url", serviceCidrsUrl)
                .log(
                    "The API server does not serve ServiceCIDRs; traffic to unallocated Service"
                        + " addresses is not dropped");
            return false;
          }
          return retrying.retryAfterException(started, failure);
        });
  }

  /** Completes once every informer's store holds its first list; fails if one stops before. */
  public CompletableFuture<Void> start() {
    // Not part of what start waits for: see serviceCidrObjects.
    logStop(serviceCidrObjects.start().toCompletableFuture(), "ServiceCIDR informer stopped");
    if (zoneDemand != null) {
      logStop(zoneDemand.start(), "Zone demand informer stopped");
    }
    var servicesListed = startFromItsOwnThread(services, "services");
    var slicesListed = startFromItsOwnThread(slices, "endpointslices");
    return CompletableFuture.allOf(
        servicesListed.thenCompose(started -> started),
        slicesListed.thenCompose(started -> started),
        nodes.start().toCompletableFuture());
  }

  private static void logStop(CompletableFuture<?> started, String message) {
    started.exceptionally(
        failure -> {
          log.atDebug().setCause(failure).log(message);
          return null;
        });
  }

  /**
   * Starts an informer from a thread of its own: the Vert.x client binds a request to the calling
   * thread's event loop, so started from one thread, Services and slices were decoded one after the
   * other on one core. Completes once started, with what completes once listed; {@link #close}
   * waits for the first.
   */
  private CompletableFuture<CompletableFuture<Void>> startFromItsOwnThread(
      SharedIndexInformer<?> informer, String kind) {
    var started =
        CompletableFuture.supplyAsync(
            () -> informer.start().toCompletableFuture(),
            task -> DaemonThreads.named("informer-start-" + kind).newThread(task).start());
    starting.add(started);
    return started;
  }

  @Override
  public boolean hasSynced() {
    return services.hasSynced() && slices.hasSynced() && nodes.hasSynced();
  }

  @Override
  public Collection<Service> services() {
    return services.getStore().list();
  }

  @Override
  public Collection<EndpointSlice> endpointSlices() {
    return slices.getStore().list();
  }

  @Override
  public List<String> serviceCidrs() {
    return serviceCidrObjects.getStore().list().stream()
        .flatMap(object -> cidrsOf(object).stream())
        .distinct()
        .toList();
  }

  private static List<String> cidrsOf(ServiceCIDR object) {
    var spec = object.getSpec();
    return spec == null || spec.getCidrs() == null ? List.of() : spec.getCidrs();
  }

  @Override
  public ZoneDemand zoneDemand() {
    return zoneDemand == null ? ZoneDemand.unknown() : zoneDemand.demand();
  }

  @Override
  public Node node() {
    return nodes.getStore().getByKey(nodeName);
  }

  @Override
  public synchronized ClusterNodeAddresses clusterNodeAddresses() {
    // Cleared before the store is read: a change stored meanwhile sets it again, for the next call.
    if (nodeAddressesChanged && nodes.hasSynced()) {
      nodeAddressesChanged = false;
      clusterNodeAddresses = ClusterNodeAddresses.of(nodes.getStore().list());
    }
    return clusterNodeAddresses;
  }

  /** Service and EndpointSlice changes no sync has taken in yet. */
  public LiveExplain.PendingChanges pendingChanges() {
    return new LiveExplain.PendingChanges(changes.pendingServices(), changes.pendingSlices());
  }

  @Override
  public Set<ObjectKey> drainChangedServices() {
    return changes.drainChangedServices();
  }

  @Override
  public Service service(ObjectKey key) {
    return services.getStore().getByKey(key.toString());
  }

  @Override
  public List<EndpointSlice> slicesOf(ObjectKey service) {
    return slices.getIndexer().byIndex(BY_SERVICE, service.toString());
  }

  @Override
  public List<Instant> drainTriggerTimes(IpFamily family) {
    return changes.drainTriggerTimes(family);
  }

  @Override
  public List<String> nodeAddresses() {
    var node = node();
    if (node == null || node.getStatus() == null || node.getStatus().getAddresses() == null) {
      return List.of();
    }
    return node.getStatus().getAddresses().stream().map(address -> address.getAddress()).toList();
  }

  private static ObjectKey keyOf(io.fabric8.kubernetes.api.model.HasMetadata object) {
    var namespace = object.getMetadata().getNamespace();
    return new ObjectKey(namespace == null ? "" : namespace, object.getMetadata().getName());
  }

  /** Passes every change on, the first list's additions (ended by {@code onList}) if asked. */
  private static <T> ResourceEventHandler<T> handler(
      boolean skipFirstList, BiConsumer<T, T> change) {
    return new ResourceEventHandler<>() {
      /** fabric8 calls a handler from one thread at a time, in order. */
      private volatile boolean listed = !skipFirstList;

      @Override
      public void onList(String resourceVersion, boolean unused) {
        listed = true;
      }

      @Override
      public void onAdd(T object) {
        if (listed) {
          change.accept(null, object);
        }
      }

      @Override
      public void onUpdate(T previous, T current) {
        change.accept(previous, current);
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        change.accept(object, null);
      }
    };
  }

  @Override
  public void close() {
    // An informer stopped while it starts could keep its resync scheduled; the starts are quick.
    try {
      CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new))
          .get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException notStarted) {
      log.atDebug().setCause(notStarted).log("An informer had not started when the cache closed");
    }
    serviceCidrObjects.stop();
    if (zoneDemand != null) {
      zoneDemand.close();
    }
    for (var informer : List.of(services, slices, nodes)) {
      informer.stop();
    }
  }
}
