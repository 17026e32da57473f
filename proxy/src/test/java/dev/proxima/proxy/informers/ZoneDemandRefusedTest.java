package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.proxima.proxy.testing.CapturedLogs;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * An API server that refuses the zone demand (no Role for it, here a server that knows nothing):
 * one warning, then quiet retries.
 */
@EnableKubernetesMockClient(https = false)
class ZoneDemandRefusedTest {
  @RegisterExtension final CapturedLogs logs = new CapturedLogs(ZoneDemandWatch.class.getName());

  KubernetesClient client;

  private final Logger logger = (Logger) LoggerFactory.getLogger(ZoneDemandWatch.class);
  private final Level level = logger.getLevel();
  private ZoneDemandWatch watch;

  @AfterEach
  void stop() {
    logger.setLevel(level);
    if (watch != null) {
      watch.close();
    }
  }

  @Test
  void aLastingRefusalIsOneWarningAndTheDemandStaysUnknown() {
    logger.setLevel(Level.DEBUG);
    watch = new ZoneDemandWatch(client, "proxima-system", Duration.ZERO, () -> {});
    watch.start().exceptionally(failure -> null);

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                logs.events().stream()
                    .anyMatch(e -> e.getFormattedMessage().startsWith("Still cannot read")));

    assertThat(logs.events().stream().filter(e -> e.getLevel() == Level.WARN))
        .singleElement()
        .satisfies(
            e -> assertThat(e.getFormattedMessage()).startsWith("Cannot read the zone demand"));
    assertThat(watch.demand().isKnown()).isFalse();
  }
}
