package dev.proxima.controller.kube;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.controller.events.EventRecorder;
import dev.proxima.controller.events.PlannedEvent;
import dev.proxima.controller.reconcile.ClusterView;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events on Services, off the worker threads. Like client-go's recorder it folds
 * repeats of the same Event into one object by raising its count, so a condition that persists
 * across syncs does not flood the namespace. Failures are logged and dropped: Events are advice.
 */
public final class KubeEventRecorder implements EventRecorder, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeEventRecorder.class);
  private static final Duration AGGREGATION_WINDOW = Duration.ofMinutes(10);
  private static final int MAX_REMEMBERED = 4096;
  private static final int MAX_PENDING = 1000;

  private final KubernetesClient client;
  private final ClusterView cluster;
  private final Clock clock;
  private final String component;
  private final String host;
  private final ExecutorService executor =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new LinkedBlockingQueue<>(MAX_PENDING),
          runnable -> {
            var thread = new Thread(runnable, "event-recorder");
            thread.setDaemon(true);
            return thread;
          });
  private final Map<PlannedEvent, Recorded> recent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<PlannedEvent, Recorded> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  public KubeEventRecorder(
      KubernetesClient client, ClusterView cluster, Clock clock, String component, String host) {
    this.client = client;
    this.cluster = cluster;
    this.clock = clock;
    this.component = component;
    this.host = host;
  }

  @Override
  public void record(PlannedEvent event) {
    try {
      executor.execute(() -> write(event));
    } catch (RejectedExecutionException full) {
      log.atWarn().addKeyValue("reason", event.reason()).log("Event backlog full; dropping Event");
    }
  }

  private void write(PlannedEvent event) {
    var now = clock.instant();
    try {
      var previous = recent.get(event);
      if (previous != null && now.isBefore(previous.last.plus(AGGREGATION_WINDOW))) {
        previous.count++;
        previous.last = now;
        client
            .v1()
            .events()
            .inNamespace(event.object().namespace())
            .withName(previous.name)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"count\":" + previous.count + ",\"lastTimestamp\":\"" + format(now) + "\"}");
        return;
      }
      var name =
          event.object().name()
              + "."
              + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
      var service = cluster.service(event.object());
      var reference =
          new ObjectReferenceBuilder()
              .withApiVersion("v1")
              .withKind("Service")
              .withNamespace(event.object().namespace())
              .withName(event.object().name())
              .withUid(service.map(s -> s.getMetadata().getUid()).orElse(null))
              .withResourceVersion(
                  service.map(s -> s.getMetadata().getResourceVersion()).orElse(null))
              .build();
      client
          .v1()
          .events()
          .inNamespace(event.object().namespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(event.object().namespace())
                  .endMetadata()
                  .withInvolvedObject(reference)
                  .withType(event.type().name())
                  .withReason(event.reason())
                  .withMessage(event.message())
                  .withCount(1)
                  .withFirstTimestamp(format(now))
                  .withLastTimestamp(format(now))
                  .withReportingComponent(component)
                  .withReportingInstance(host)
                  .withNewSource(component, host)
                  .build())
          .create();
      recent.put(event, new Recorded(name, now));
    } catch (RuntimeException failure) {
      recent.remove(event);
      log.atWarn()
          .addKeyValue("service", event.object())
          .addKeyValue("reason", event.reason())
          .addKeyValue("cause", ApiServerFailures.cause(failure))
          .log("Could not record Event");
      log.atDebug().setCause(failure).log("Could not record Event");
    }
  }

  private static String format(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(
        instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
  }

  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class Recorded {
    final String name;
    int count = 1;
    Instant last;

    Recorded(String name, Instant last) {
      this.name = name;
      this.last = last;
    }
  }
}
