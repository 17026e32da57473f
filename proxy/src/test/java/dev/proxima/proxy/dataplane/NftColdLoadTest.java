package dev.proxima.proxy.dataplane;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.proxy.dataplane.DataPlane.Status;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * A new table is loaded batch by batch while the next batch is rendered: the kernel gets the
 * transactions one rendering-then-loading would give it, in order; the renderer never gets more
 * than one transaction ahead; and a refused transaction stops the ones after it, as a load of them
 * one after another does.
 */
class NftColdLoadTest {
  private final List<String> loaded = Collections.synchronizedList(new ArrayList<>());
  private final List<String> loadingThreads = Collections.synchronizedList(new ArrayList<>());

  /** Enough Services for several transactions of {@link NftDataPlane#TRANSACTION_LINES}. */
  private static List<ServicePortRules> services() {
    var ports = new ArrayList<ServicePortRules>();
    for (int i = 0; i < 8_000; i++) {
      ports.add(
          service("ns/svc" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), 80)
              .cluster(
                  remote("10.180." + (i / 250) + "." + (i % 250 + 1), 8080),
                  remote("10.181." + (i / 250) + "." + (i % 250 + 1), 8080)));
    }
    return ports;
  }

  private NftDataPlane plane(Predicate<String> kernelTakes) {
    RuleLoader loader =
        transaction -> {
          var script = transaction.toString();
          loadingThreads.add(Thread.currentThread().getName());
          if (!kernelTakes.test(script)) {
            return new Nft.Result(false, "Error: refused", null);
          }
          loaded.add(script);
          return new Nft.Result(true, "", null);
        };
    var metrics = new ProxyMetrics(new PrometheusRegistry(), ProxyMode.nftables);
    return new NftDataPlane(
        IpFamily.IPV4, RuleSettings.defaults(), loader, metrics, Clock.systemUTC());
  }

  private static List<String> batchesOf(List<ServicePortRules> ports) {
    var config = RuleSettings.defaults().forFamily(IpFamily.IPV4, List.of(), List.of());
    return new RulesetAssembler(config).replaceAllInBatches(ports, NftDataPlane.TRANSACTION_LINES);
  }

  @Test
  void aNewTableIsLoadedOnTheLoaderThreadInTheBatchesOfARenderThenLoad() {
    var ports = services();
    var plane = plane(script -> true);

    var outcome = plane.replaceAll(ports, List.of());

    var expected = batchesOf(ports);
    assertThat(expected).hasSizeGreaterThan(3);
    assertThat(outcome.status()).isEqualTo(Status.LOADED);
    // The table and its shared chains first, the port batches, the Service CIDRs last: in order,
    // on one loader thread.
    assertThat(loaded).containsExactlyElementsOf(expected);
    assertThat(loadingThreads).containsOnly("nft-load-ipv4");
    assertThat(plane.linesLoaded())
        .isEqualTo(expected.stream().mapToInt(IptablesDataPlane::lines).sum());
    assertThat(plane.longestTransaction())
        .isEqualTo(expected.stream().mapToInt(IptablesDataPlane::lines).max().orElseThrow());
  }

  @Test
  void aRefusedBatchLeavesTheLaterOnesUnloadedAndTheNextFullSyncBuildsTheTableAgain() {
    var ports = services();
    var expected = batchesOf(ports);
    var refused = expected.get(1);
    var plane = plane(script -> !script.equals(refused));

    var outcome = plane.replaceAll(ports, List.of());

    assertThat(outcome.status()).isEqualTo(Status.FAILED);
    assertThat(outcome.error()).contains("refused");
    assertThat(loaded).containsExactly(expected.get(0));

    loaded.clear();
    var again = plane(script -> true);
    assertThat(again.replaceAll(ports, List.of()).status()).isEqualTo(Status.LOADED);
    assertThat(loaded).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aFullSyncThatCannotListTheTableNeverBuildsIntoTheGenerationInUseAlsoAfterAFailedOne() {
    var ports = services();
    var takes = new java.util.concurrent.atomic.AtomicReference<Predicate<String>>(script -> true);
    // This loader cannot list the table, as when nft's listing fails.
    var plane = plane(script -> takes.get().test(script));
    assertThat(plane.replaceAll(ports, List.of()).status()).isEqualTo(Status.LOADED);
    assertThat(String.join("\n", loaded)).doesNotContain("-g1");

    // The next full sync builds beside it, and the kernel refuses one of its batches.
    loaded.clear();
    takes.set(script -> !script.contains("10.96.16.1 "));
    assertThat(plane.replaceAll(ports, List.of()).status()).isEqualTo(Status.FAILED);

    loaded.clear();
    takes.set(script -> true);
    assertThat(plane.replaceAll(ports, List.of()).status()).isEqualTo(Status.LOADED);
    assertThat(loaded.get(0))
        .as("the base chains still jump to the first generation: build beside it again")
        .contains("services-g1");
  }

  @Test
  void theRendererWaitsWhileTheLoaderIsBehindInsteadOfHoldingEveryBatch() throws Exception {
    var ports = services();
    var firstLoading = new CountDownLatch(1);
    var release = new CountDownLatch(1);
    var plane =
        plane(
            script -> {
              firstLoading.countDown();
              try {
                return release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    var syncThread = new Thread[1];
    var sync =
        CompletableFuture.supplyAsync(
            () -> {
              syncThread[0] = Thread.currentThread();
              return plane.replaceAll(ports, List.of());
            });

    assertThat(firstLoading.await(30, TimeUnit.SECONDS)).isTrue();
    // The first batch is being loaded, one more waits in the hand-over: the renderer blocks on
    // the third, though the table has more.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> syncThread[0].getState() == Thread.State.WAITING);
    assertThat(loadingThreads).hasSize(1);

    release.countDown();
    assertThat(sync.get(30, TimeUnit.SECONDS).status()).isEqualTo(Status.LOADED);
    assertThat(loaded).containsExactlyInAnyOrderElementsOf(batchesOf(ports));
  }

  @Test
  void aSyncInterruptedWhileItWaitsForTheLoaderFailsInsteadOfCountingAsLoaded() throws Exception {
    var ports = services();
    var secondLoading = new CountDownLatch(1);
    var release = new CountDownLatch(1);
    var calls = new java.util.concurrent.atomic.AtomicInteger();
    var plane =
        plane(
            script -> {
              if (calls.incrementAndGet() == 2) {
                secondLoading.countDown();
                awaitUninterruptibly(release);
              }
              return true;
            });
    var outcome = new CompletableFuture<DataPlane.Outcome>();
    var sync = new Thread(() -> outcome.complete(plane.replaceAll(ports, List.of())), "sync");
    sync.start();
    assertThat(secondLoading.await(30, TimeUnit.SECONDS)).isTrue();
    // The renderer has filled the queue behind the stuck load and waits for room.
    await().atMost(Duration.ofSeconds(30)).until(() -> sync.getState() == Thread.State.WAITING);

    sync.interrupt();
    release.countDown();

    assertThat(outcome.get(30, TimeUnit.SECONDS).status()).isEqualTo(Status.FAILED);
    assertThat(loaded.size()).isLessThan(batchesOf(ports).size());
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
