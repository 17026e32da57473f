package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 12: endpoints scaled down and up repeatedly while clients connect back to back. No
 * connection may reach an endpoint after its removal is in the client node's ruleset, and the time
 * from each slice change to the first connection reaching an added endpoint is printed.
 */
@ExtendWith(NetnsClusterExtension.class)
class ChurnNetnsIT {
  private static final List<String> POOL = List.of("a1s1", "a2s1", "b1s1", "b1s2", "c1s1", "c1s2");
  private static final List<String> CHURNED = List.of("b1s1", "c1s2", "a2s1", "b1s2");

  /** A connection's start (epoch seconds) and who answered. */
  private record Attempt(double start, String server) {}

  /** One change: the endpoint, when the slice was written, when the client's node had it. */
  private record Change(String endpoint, boolean added, Instant triggered, Instant programmed) {}

  @Test
  void underChurnNoConnectionReachesAnEndpointOnceItsRemovalIsProgrammed(NetnsCluster cluster)
      throws IOException {
    var churn = cluster.workload("churn");
    cluster.apply(churn, cluster.ready(POOL.toArray(String[]::new)));
    var clients = List.of(cluster.clientOn("a1"), cluster.clientOn("c1"));
    Map<Layout.Pod, Path> outputs = new LinkedHashMap<>();
    List<Process> loops = new ArrayList<>();
    List<Change> changes = new ArrayList<>();
    try {
      for (var client : clients) {
        var output = cluster.workDir().resolve("churn-" + client.name() + ".log");
        outputs.put(client, output);
        loops.add(cluster.loop(client, churn, output));
      }
      var current = new ArrayList<>(POOL);
      for (int round = 0; round < 2; round++) {
        for (var endpoint : CHURNED) {
          current.remove(endpoint);
          changes.add(change(cluster, churn, current, endpoint, false, outputs));
          current.add(endpoint);
          changes.add(change(cluster, churn, current, endpoint, true, outputs));
        }
      }
    } finally {
      loops.forEach(Process::destroyForcibly);
    }

    List<Long> latencies = new ArrayList<>();
    for (var entry : outputs.entrySet()) {
      var attempts = attempts(entry.getValue());
      assertThat(attempts)
          .as("%s connected throughout", entry.getKey().name())
          .hasSizeGreaterThan(50);
      assertThat(attempts)
          .as("%s: every connection was answered", entry.getKey().name())
          .allSatisfy(a -> assertThat(a.server()).isIn(POOL));
      for (int i = 0; i < changes.size(); i++) {
        var change = changes.get(i);
        var until = i + 1 < changes.size() ? changes.get(i + 1).triggered() : Instant.MAX;
        var during = window(attempts, change.programmed(), until);
        if (change.added()) {
          var first =
              window(attempts, change.triggered(), until).stream()
                  .filter(a -> a.server().equals(change.endpoint()))
                  .findFirst();
          assertThat(first).as("%s reached %s", entry.getKey().name(), change).isPresent();
          latencies.add(millisBetween(change.triggered(), first.get().start()));
        } else {
          assertThat(during)
              .as(
                  "%s: connections after %s's removal was programmed at %s",
                  entry.getKey().name(), change.endpoint(), change.programmed())
              .noneMatch(a -> a.server().equals(change.endpoint()));
        }
      }
    }
    latencies.sort(null);
    System.out.printf(
        "netns e2e churn: network programming latency, slice trigger time to the first connection"
            + " reaching an added endpoint (an upper bound: a connection picks it 1 time in 6),"
            + " over %d additions: p50 %d ms, p99 %d ms%n",
        latencies.size(),
        latencies.get(latencies.size() / 2),
        latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1));
  }

  /**
   * Writes the slice, then waits until every client's node has programmed the change, and after an
   * addition until every client has reached the added endpoint, so each addition is measured.
   */
  private static Change change(
      NetnsCluster cluster,
      Workload churn,
      List<String> endpoints,
      String endpoint,
      boolean added,
      Map<Layout.Pod, Path> outputs) {
    var triggered = Instant.now();
    cluster.setEndpoints(churn, cluster.ready(endpoints.toArray(String[]::new)));
    var ip = cluster.pod(endpoint).ipv4();
    for (var client : outputs.keySet()) {
      await(endpoint + (added ? " added on " : " removed on ") + client.node().name())
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> RulesetText.mentions(cluster.ruleset(client.node()), ip) == added);
    }
    var programmed = Instant.now();
    if (added) {
      for (var output : outputs.entrySet()) {
        await(output.getKey().name() + " reaches " + endpoint)
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () ->
                    window(attempts(output.getValue()), triggered, Instant.MAX).stream()
                        .anyMatch(a -> a.server().equals(endpoint)));
      }
    }
    return new Change(endpoint, added, triggered, programmed);
  }

  private static List<Attempt> attempts(Path output) throws IOException {
    return Files.readAllLines(output).stream()
        .map(line -> line.trim().split("\\s+"))
        .filter(parts -> parts.length >= 2 && parts[0].matches("\\d+\\.\\d+"))
        .map(parts -> new Attempt(Double.parseDouble(parts[0]), parts[1]))
        .toList();
  }

  private static List<Attempt> window(List<Attempt> attempts, Instant from, Instant until) {
    double start = seconds(from);
    double end = until == Instant.MAX ? Double.MAX_VALUE : seconds(until);
    return attempts.stream().filter(a -> a.start() >= start && a.start() < end).toList();
  }

  private static double seconds(Instant instant) {
    return new BigDecimal(instant.getEpochSecond())
        .add(BigDecimal.valueOf(instant.getNano(), 9))
        .doubleValue();
  }

  private static long millisBetween(Instant from, double epochSeconds) {
    return Math.round((epochSeconds - seconds(from)) * 1000);
  }
}
