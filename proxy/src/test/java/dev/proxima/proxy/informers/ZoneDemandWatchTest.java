package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.testing.CapturedLogs;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The zone demand as the proxy reads it: one ConfigMap, by name, calm when it is missing. */
@EnableKubernetesMockClient(crud = true, https = false)
class ZoneDemandWatchTest {
  private static final ZoneDemand HALVES =
      ZoneDemand.ofRatios(Map.of("zone-a", 0.5, "zone-b", 0.5));

  @RegisterExtension final CapturedLogs logs = new CapturedLogs(ZoneDemandWatch.class.getName());

  KubernetesClient client;

  private final AtomicInteger changes = new AtomicInteger();
  private ZoneDemandWatch watch;

  @AfterEach
  void stop() {
    if (watch != null) {
      watch.close();
    }
  }

  private static ConfigMap configMap(String name, Map<String, String> data) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("proxima-system")
        .withName(name)
        .endMetadata()
        .withData(data)
        .build();
  }

  private ZoneDemandWatch started() {
    watch = new ZoneDemandWatch(client, "proxima-system", Duration.ZERO, changes::incrementAndGet);
    watch.start().join();
    return watch;
  }

  @Test
  void thePublishedDemandIsReadAndAnotherConfigMapBesideItIsNot() {
    client.resource(configMap("other", Map.of("zone-a", "0.9", "zone-b", "0.1"))).create();
    client.resource(configMap(ZoneDemand.CONFIG_MAP_NAME, HALVES.data())).create();

    var watch = started();

    await().atMost(Duration.ofSeconds(10)).until(() -> watch.demand().equals(HALVES));
    // The watch delivers in order: once the later change of the real one is in, so is the other.
    client.resource(configMap("other", Map.of("zone-a", "0.8", "zone-b", "0.2"))).update();
    var later = ZoneDemand.ofRatios(Map.of("zone-a", 0.6, "zone-b", 0.4));
    client.resource(configMap(ZoneDemand.CONFIG_MAP_NAME, later.data())).update();
    await().atMost(Duration.ofSeconds(10)).until(() -> watch.demand().equals(later));
    assertThat(changes).hasValue(2);
  }

  @Test
  void aRefusedOrDeletedDemandIsUnknownWithOneWarningPerProblem() {
    var watch =
        new ZoneDemandWatch(client, "proxima-system", Duration.ZERO, changes::incrementAndGet);
    this.watch = watch;
    var bad = configMap(ZoneDemand.CONFIG_MAP_NAME, Map.of("zone-a", "lots", "zone-b", "0.5"));

    watch.seen(configMap(ZoneDemand.CONFIG_MAP_NAME, HALVES.data()), false);
    watch.seen(bad, false);
    watch.seen(bad, false);
    watch.seen(bad, false);
    watch.seen(bad, true);

    assertThat(watch.demand().isKnown()).isFalse();
    assertThat(changes).as("known, then unknown").hasValue(2);
    assertThat(logs.events().stream().filter(e -> e.getLevel() == Level.WARN))
        .extracting(e -> e.getKeyValuePairs().get(1).value.toString())
        .containsExactly(
            "proxima-zone-demand holds zone zone-a has a share that is not a decimal from 0 to"
                + " 1; demand unknown",
            "proxima-zone-demand was deleted; demand unknown");
  }

  @Test
  void onlyTheServicesThatAskForSpillOverArePlannedAgainForANewDemand() {
    var asking =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web")
            .withAnnotations(Map.of("proxima.dev/zone-spill-over", "true"))
            .endMetadata()
            .build();
    var invalid =
        new ServiceBuilder(asking)
            .editMetadata()
            .withName("typo")
            .withAnnotations(Map.of("proxima.dev/zone-spill-over", "yes"))
            .endMetadata()
            .build();
    var plain =
        new ServiceBuilder(asking)
            .editMetadata()
            .withName("db")
            .withAnnotations(Map.of())
            .endMetadata()
            .build();
    var pending = new PendingChanges(Instant.EPOCH);

    pending.touched(ZoneDemandWatch.optedIn(List.of(asking, invalid, plain)));

    assertThat(pending.pendingServices()).isEqualTo(1);
    assertThat(pending.drainChangedServices()).containsExactly(new ObjectKey("shop", "web"));
    assertThat(pending.drainChangedServices()).isEmpty();
  }
}
