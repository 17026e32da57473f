package dev.proxima.proxy.informers;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.model.ZoneSpillOverSetting;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the ConfigMap where the controller publishes each zone's share of the demand. Not waited
 * for: while it is unread, missing or refused, the demand is unknown and Services route without
 * spill-over. A problem is logged when it starts or changes, not per event.
 */
public final class ZoneDemandWatch {
  private static final Logger log = LoggerFactory.getLogger(ZoneDemandWatch.class);

  private final SharedIndexInformer<ConfigMap> informer;
  private final String namespace;
  private final Runnable changed;
  private volatile ZoneDemand demand = ZoneDemand.unknown();
  private String problem = "";

  /** {@code changed} runs on the informer's thread: it must only record and ask for a sync. */
  public ZoneDemandWatch(
      KubernetesClient client, String namespace, Duration resync, Runnable changed) {
    this.namespace = namespace;
    this.changed = changed;
    informer =
        client
            .configMaps()
            .inNamespace(namespace)
            .withName(ZoneDemand.CONFIG_MAP_NAME)
            .runnableInformer(resync.toMillis());
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(ConfigMap object) {
            seen(object, false);
          }

          @Override
          public void onUpdate(ConfigMap previous, ConfigMap current) {
            seen(current, false);
          }

          @Override
          public void onDelete(ConfigMap object, boolean finalStateUnknown) {
            seen(object, true);
          }
        });
    var api = client.getMasterUrl().toString().replaceAll("/+$", "");
    var url = api + "/api/v1/namespaces/" + namespace + "/configmaps";
    var retrying = ApiServerFailures.retryingInformer(log, url);
    informer.exceptionHandler(
        (started, failure) -> {
          int status = ApiServerFailures.statusCode(failure);
          if (status != 403 && status != 404) {
            refusedWith = 0;
            return retrying.retryAfterException(started, failure);
          }
          // An install without the proxy's Role for it: say so once, then keep trying quietly.
          if (status != refusedWith) {
            refusedWith = status;
            log.atWarn()
                .addKeyValue("url", url)
                .addKeyValue("cause", ApiServerFailures.cause(failure))
                .log(
                    "Cannot read the zone demand; Services with zone spill-over keep every"
                        + " connection in-zone until it can be read");
          } else {
            log.atDebug().addKeyValue("url", url).log("Still cannot read the zone demand");
          }
          return true;
        });
  }

  /** The HTTP status the latest refusal came with, so that a lasting one is logged once. */
  private volatile int refusedWith;

  /** Starts watching; the returned stage completes once the watch has started. */
  public CompletableFuture<Void> start() {
    return informer.start().toCompletableFuture().thenApply(listed -> null);
  }

  /** The latest demand read; unknown when the ConfigMap is missing or refused. */
  public ZoneDemand demand() {
    return demand;
  }

  /** Takes in one event; the name is checked again, as not every API server filters by it. */
  synchronized void seen(ConfigMap object, boolean deleted) {
    var metadata = object == null ? null : object.getMetadata();
    if (metadata == null || !ZoneDemand.CONFIG_MAP_NAME.equals(metadata.getName())) {
      return;
    }
    var parsed =
        deleted
            ? new ZoneDemand.Parsed(
                ZoneDemand.unknown(),
                List.of(ZoneDemand.CONFIG_MAP_NAME + " was deleted; demand unknown"))
            : ZoneDemand.parse(object.getData());
    var now = String.join("; ", parsed.problems());
    if (!now.equals(problem)) {
      if (!now.isEmpty()) {
        log.atWarn()
            .addKeyValue("namespace", namespace)
            .addKeyValue("problem", now)
            .log(
                "Zone demand unknown: Services with zone spill-over keep every connection in-zone");
      } else {
        log.atInfo()
            .addKeyValue("namespace", namespace)
            .log("Zone demand readable again: zone spill-over applies");
      }
      problem = now;
    }
    if (!parsed.demand().equals(demand)) {
      demand = parsed.demand();
      changed.run();
    }
  }

  /** The Services that asked for zone spill-over: the only ones a new demand changes. */
  static List<ObjectKey> optedIn(Collection<Service> services) {
    var keys = new ArrayList<ObjectKey>();
    for (var service : services) {
      var metadata = service.getMetadata();
      if (metadata != null
          && ZoneSpillOverSetting.parse(metadata.getAnnotations()).state()
              == ZoneSpillOverSetting.State.ON) {
        keys.add(new ObjectKey(metadata.getNamespace(), metadata.getName()));
      }
    }
    return keys;
  }

  public void close() {
    informer.stop();
  }
}
