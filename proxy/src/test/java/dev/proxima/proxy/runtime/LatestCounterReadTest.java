package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortCounts;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LatestCounterReadTest {
  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private static Optional<ConnectionCounts> counts(long node) {
    return Optional.of(
        new ConnectionCounts(Map.of(Locality.NODE, node), 0, ServicePortCounts.NONE));
  }

  @Test
  void aQuickReadIsShownAtOnceAndEveryScrapeReadsAgain() {
    var reads = new AtomicInteger();
    var latest =
        new LatestCounterRead(
            () -> counts(reads.incrementAndGet()), executor, Duration.ofSeconds(5));

    assertThat(latest.get()).isEqualTo(counts(1));
    assertThat(latest.get()).isEqualTo(counts(2));
  }

  @Test
  void aSlowReadShowsTheLatestFinishedOneAndIsPickedUpByTheNextScrape() throws Exception {
    var reads = new AtomicInteger();
    var release = new CountDownLatch(1);
    var latest =
        new LatestCounterRead(
            () -> {
              int read = reads.incrementAndGet();
              if (read == 2) {
                try {
                  release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return counts(read);
            },
            executor,
            Duration.ofMillis(200));
    assertThat(latest.get()).isEqualTo(counts(1));

    assertThat(latest.get()).as("the second read is still under way").isEqualTo(counts(1));
    assertThat(latest.get()).as("and no second one starts beside it").isEqualTo(counts(1));
    assertThat(reads).hasValue(2);

    release.countDown();
    assertThat(latest.get()).isEqualTo(counts(2));
  }

  @Test
  void aFailedReadIsReportedAsNoReadAndTheNextScrapeTriesAgain() {
    var reads = new AtomicInteger();
    var latest =
        new LatestCounterRead(
            () -> {
              if (reads.incrementAndGet() == 1) {
                throw new IllegalStateException("nft died");
              }
              return counts(7);
            },
            executor,
            Duration.ofSeconds(5));

    assertThat(latest.get()).isEmpty();
    assertThat(latest.get()).isEqualTo(counts(7));
  }
}
