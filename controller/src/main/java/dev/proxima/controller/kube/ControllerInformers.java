package dev.proxima.controller.kube;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.controller.reconcile.ClusterView;
import dev.proxima.controller.reconcile.SliceOwnership;
import dev.proxima.informers.CompactingItemStore;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.cache.CachedObjects;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's informers on Services, on EndpointSlices carrying the service-name label, and on
 * Nodes. Their handlers only turn events into Service keys; all work happens on the queue's
 * workers.
 */
public final class ControllerInformers implements ClusterView, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControllerInformers.class);
  private static final String BY_SERVICE = "byService";

  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final SharedIndexInformer<Node> nodes;

  /**
   * @param enqueue receives the key of every Service an event concerns
   * @param nodesChanged runs when a Node appears, disappears, or changes in what zone allocation
   *     reads (readiness, zone label, allocatable CPU, control-plane role); it must only hand off
   */
  public ControllerInformers(
      KubernetesClient client,
      Duration resyncPeriod,
      Consumer<ObjectKey> enqueue,
      Runnable nodesChanged) {
    long resync = resyncPeriod.toMillis();
    services = client.services().inAnyNamespace().runnableInformer(resync);
    slices =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .withLabel(Labels.SERVICE_NAME)
            .runnableInformer(resync);
    nodes = client.nodes().runnableInformer(resync);
    // Slices are written back whole, so they and Services are only compacted, never trimmed.
    services.itemStore(new CompactingItemStore<>(CachedObjects::compact));
    slices.itemStore(new CompactingItemStore<>(CachedObjects::compact));
    nodes.itemStore(new CompactingItemStore<>(ControllerInformers::trimNode));

    slices.addIndexers(
        Map.of(
            BY_SERVICE,
            slice ->
                SliceOwnership.serviceOf(slice)
                    .map(key -> List.of(key.toString()))
                    .orElse(List.of())));
    services.addEventHandler(
        handler(
            service -> Optional.of(keyOf(service)),
            ControllerInformers::onlyStatusChanged,
            enqueue));
    slices.addEventHandler(handler(SliceOwnership::serviceOf, (before, after) -> false, enqueue));
    // Zones come from the slices themselves for trafficDistribution; Nodes only matter to Auto.
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            nodesChanged.run();
          }

          @Override
          public void onUpdate(Node previous, Node current) {
            if (!NodeTopology.of(previous).equals(NodeTopology.of(current))) {
              nodesChanged.run();
            }
          }

          @Override
          public void onDelete(Node node, boolean finalStateUnknown) {
            nodesChanged.run();
          }
        });
    var api = client.getMasterUrl().toString().replaceAll("/+$", "");
    services.exceptionHandler(ApiServerFailures.retryingInformer(log, api + "/api/v1/services"));
    slices.exceptionHandler(
        ApiServerFailures.retryingInformer(log, api + "/apis/discovery.k8s.io/v1/endpointslices"));
    nodes.exceptionHandler(ApiServerFailures.retryingInformer(log, api + "/api/v1/nodes"));
  }

  /** Starts every informer and completes once all of them have listed their objects. */
  public CompletableFuture<Void> start() {
    return CompletableFuture.allOf(
        services.start().toCompletableFuture(),
        slices.start().toCompletableFuture(),
        nodes.start().toCompletableFuture());
  }

  public boolean hasSynced() {
    return services.hasSynced() && slices.hasSynced() && nodes.hasSynced();
  }

  /** Every Service key in the cache, for a full resync after gaining leadership. */
  public List<ObjectKey> serviceKeys() {
    return services.getStore().list().stream().map(ControllerInformers::keyOf).toList();
  }

  @Override
  public List<Node> nodes() {
    return nodes.getStore().list();
  }

  @Override
  public Optional<Service> service(ObjectKey key) {
    return Optional.ofNullable(services.getStore().getByKey(key.toString()));
  }

  @Override
  public List<EndpointSlice> slicesOf(ObjectKey service) {
    return slices.getIndexer().byIndex(BY_SERVICE, service.toString());
  }

  @Override
  public void close() {
    for (var informer : List.of(services, slices, nodes)) {
      informer.stop();
    }
    try {
      CompletableFuture.allOf(
              services.stopped().toCompletableFuture().exceptionally(failure -> null),
              slices.stopped().toCompletableFuture().exceptionally(failure -> null),
              nodes.stopped().toCompletableFuture().exceptionally(failure -> null))
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.atDebug().setCause(e).log("Informers did not confirm their stop in time");
    }
  }

  /**
   * Zone allocation reads a Node's labels, readiness, allocatable CPU and deletion; the controller
   * never writes Nodes. Their image lists and managed fields are most of a real Node's size, times
   * every Node in the cluster.
   */
  private static void trimNode(Node node) {
    if (node.getMetadata() != null) {
      node.getMetadata().setManagedFields(List.of());
    }
    if (node.getStatus() != null) {
      node.getStatus().setImages(List.of());
    }
  }

  static ObjectKey keyOf(HasMetadata object) {
    return new ObjectKey(object.getMetadata().getNamespace(), object.getMetadata().getName());
  }

  /**
   * A new version of a Service that differs only in its status: the controller's own conditions
   * write, which must not bring the Service back (a sync it starts races the write's own event and
   * can only repeat the sync just done, or send a status patch over a version the cache has not
   * caught up with). A resync's update (the same version) is not one of these.
   */
  static boolean onlyStatusChanged(Service before, Service after) {
    var was = before.getMetadata();
    var is = after.getMetadata();
    return was.getResourceVersion() != null
        && !was.getResourceVersion().equals(is.getResourceVersion())
        && Objects.equals(was.getGeneration(), is.getGeneration())
        && Objects.equals(was.getLabels(), is.getLabels())
        && Objects.equals(was.getAnnotations(), is.getAnnotations())
        && Objects.equals(was.getDeletionTimestamp(), is.getDeletionTimestamp())
        && Objects.equals(before.getSpec(), after.getSpec());
  }

  private static <T> ResourceEventHandler<T> handler(
      java.util.function.Function<T, Optional<ObjectKey>> keys,
      java.util.function.BiPredicate<T, T> ignored,
      Consumer<ObjectKey> enqueue) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        keys.apply(object).ifPresent(enqueue);
      }

      @Override
      public void onUpdate(T previous, T current) {
        if (ignored.test(previous, current)) {
          return;
        }
        var before = keys.apply(previous);
        var after = keys.apply(current);
        after.ifPresent(enqueue);
        // A slice relabelled to another Service concerns both of them.
        if (before.isPresent() && !Objects.equals(before, after)) {
          enqueue.accept(before.get());
        }
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        keys.apply(object).ifPresent(enqueue);
      }
    };
  }
}
