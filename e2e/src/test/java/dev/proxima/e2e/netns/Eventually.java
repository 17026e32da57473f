package dev.proxima.e2e.netns;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.awaitility.core.ThrowingRunnable;

/**
 * Waits for the data plane to converge: the proxies sync within a fraction of a second of a change,
 * but the controller re-hints a rewritten slice just after, so a scenario's assertions hold only
 * once both have run. The last failed attempt's message (who reached whom) is reported.
 */
final class Eventually {
  private Eventually() {}

  static void holds(ThrowingRunnable assertions) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(assertions);
  }
}
