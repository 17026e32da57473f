package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.model.Annotations;
import dev.proxima.model.ServiceConditions;
import dev.proxima.proxy.model.ProxyMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Zone spill-over with real connections, written once for every data plane: a subclass names the
 * proxy mode. The zones are skewed for these scenarios: zone-a's two Nodes report twice their usual
 * CPU, so the controller publishes zone-a's demand as half, and zone-a's clients (one on a1, one on
 * a2) do open half the connections. Of the five endpoints only a1s1 is in zone-a, two each in
 * zone-b and zone-c: the same proportions as 2 of 10 against 4 and 4.
 */
@ExtendWith(NetnsClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ZoneSpillOverScenarios implements NetnsClusterExtension.PicksProxyMode {
  private static final List<String> ENDPOINTS = List.of("a1s1", "b1s1", "b1s2", "c1s1", "c1s2");
  private static final Map<String, List<String>> ZONE_ENDPOINTS =
      Map.of(
          "a1", List.of("a1s1"),
          "a2", List.of("a1s1"),
          "b1", List.of("b1s1", "b1s2"),
          "c1", List.of("c1s1", "c1s2"));
  private static final List<String> CLIENT_NODES = List.of("a1", "a2", "b1", "c1");
  // 500 from each node's client, 2,000 in all: zone-a's two clients open 1,000 of them.
  private static final int PER_CLIENT = 500;
  private static final int TOTAL = PER_CLIENT * CLIENT_NODES.size();
  private static final int MEAN = TOTAL / ENDPOINTS.size();
  // HostTools gives each command a minute; 100 connections take a few seconds even when loaded.
  private static final int BATCH = 100;

  abstract ProxyMode mode();

  @BeforeAll
  void skewTheZones(NetnsCluster cluster) {
    cluster.useMode(mode());
    cluster.setAllocatableCpu(cluster.node("a1"), 4);
    cluster.setAllocatableCpu(cluster.node("a2"), 4);
    cluster.awaitZoneDemand(Map.of("zone-a", "0.500", "zone-b", "0.250", "zone-c", "0.250"));
  }

  /** The other classes share the cluster and expect every zone to have the same CPU again. */
  @AfterAll
  void evenTheZonesAgain(NetnsCluster cluster) {
    cluster.layout.nodes().forEach(node -> cluster.setAllocatableCpu(node, node.cpu()));
    cluster.awaitZoneDemand(Map.of("zone-a", "0.333", "zone-b", "0.333", "zone-c", "0.333"));
  }

  @Test
  void withoutTheAnnotationTheOnlyZoneAEndpointTakesTwoAndAHalfTimesTheMean(NetnsCluster cluster) {
    var zonal =
        cluster.applyHinted(
            cluster.workload("unspilled").distributed("PreferSameZone"),
            cluster.ready(ENDPOINTS.toArray(String[]::new)));
    Eventually.holds(
        () -> {
          for (var node : CLIENT_NODES) {
            var answers = cluster.probe(cluster.clientOn(node), zonal, "tcp", 10);
            assertThat(answers.counts().keySet())
                .as("the hints are programmed: %s", answers)
                .isSubsetOf(ZONE_ENDPOINTS.get(node));
          }
        });

    var answers = connectFromEveryZone(cluster, zonal);

    var all = Answers.describe(answers);
    answers.forEach(
        fromNode ->
            assertThat(fromNode.servers())
                .as("every client stays in its zone%s", all)
                .isSubsetOf(ZONE_ENDPOINTS.get(fromNode.client().substring(0, 2))));
    // No chance involved: a1s1 is zone-a's only endpoint and takes each of zone-a's connections.
    assertThat(perEndpoint(answers).get("a1s1"))
        .as("a1s1 takes 2.5 times the mean of %d%s", MEAN, all)
        .isEqualTo(2 * PER_CLIENT)
        .isEqualTo(MEAN * 5 / 2);
  }

  /**
   * With a tolerance of 1.25 zone-a keeps p = 37.5% of its connections on a1s1 and spreads the rest
   * over all five endpoints (docs/traffic-distribution.md works the example); zone-b's and zone-c's
   * endpoints have room, so those zones keep everything.
   *
   * <p>The bound: each of zone-a's 1,000 connections reaches a1s1 with probability p + (1 − p)/5 =
   * 0.5, and no other zone's connection reaches it, so a1s1's count is binomial with n = 1,000 and
   * mean 500, exactly 1.25 times the mean of 400, standard deviation √(1,000 · 0.5 · 0.5) = 15.8.
   * The test allows 80 connections either way, five standard deviations: a correct data plane falls
   * outside that less than once in a million runs, while a zone that kept everything (1,000) or
   * spread everything (200) is far outside. A zone-b or zone-c endpoint expects 250 from its own
   * zone's client and 125 spilled from zone-a, 375 with a standard deviation of 15.3, so it cannot
   * come near a1s1's upper bound by chance either.
   */
  @Test
  void withTheAnnotationNoEndpointTakesMoreThanTheToleranceOverTheMeanAndZonesWithRoomStayInZone(
      NetnsCluster cluster) {
    var workload = cluster.workload("spilled").distributed("PreferSameZone");
    workload.annotations.put(Annotations.ZONE_SPILL_OVER, "true");
    workload.annotations.put(Annotations.ZONE_SPILL_OVER_TOLERANCE, "1.25");
    var spilled = cluster.applyHinted(workload, cluster.ready(ENDPOINTS.toArray(String[]::new)));
    await("the controller reports zone-a's fraction")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(cluster.condition(spilled, ServiceConditions.ZONE_SPILL_OVER))
                    .isNotNull()
                    .satisfies(
                        condition -> {
                          assertThat(condition.getReason())
                              .isEqualTo(ServiceConditions.ZoneSpillOverReason.SPILLING);
                          assertThat(condition.getMessage())
                              .contains("zone-a 37.5%, zone-b 100%, zone-c 100%");
                        }));
    // Each node's proxy publishes the fraction it keeps: zone-a's nodes 0.375, the others all.
    for (var node : CLIENT_NODES) {
      double keeps = node.startsWith("a") ? 0.375 : 1.0;
      await("the proxy on " + node + " keeps " + keeps)
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(300))
          .until(
              () ->
                  Metrics.value(
                      cluster.metrics(cluster.node(node)),
                      "proxima_proxy_zone_spill_local_fraction",
                      "service=\"" + spilled.name + "\"",
                      "port=\"tcp\""),
              value -> value == keeps);
    }
    // Each zone-a node spills once its proxy has the fraction: a connection leaves zone-a half the
    // time then, so 20 in a row that all stay mean the rules are not there yet.
    for (var node : List.of("a1", "a2")) {
      await("zone-a's node " + node + " spills")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(300))
          .until(
              () ->
                  cluster.probe(cluster.clientOn(node), spilled, "tcp", 20).servers().stream()
                      .anyMatch(server -> !server.equals("a1s1")));
    }

    var answers = connectFromEveryZone(cluster, spilled);

    var all = Answers.describe(answers);
    var counts = perEndpoint(answers);
    for (var node : List.of("b1", "c1")) {
      var fromNode = answers.get(CLIENT_NODES.indexOf(node));
      assertThat(fromNode.servers())
          .as("zone-%s has room for its clients and keeps them in-zone%s", node.charAt(0), all)
          .isSubsetOf(ZONE_ENDPOINTS.get(node));
    }
    assertThat(counts).as("every endpoint answers%s", all).containsOnlyKeys(ENDPOINTS);
    assertThat(counts.get("a1s1"))
        .as("a1s1 takes 1.25 times the mean of %d, give or take 80%s", MEAN, all)
        .isBetween(MEAN * 5 / 4 - 80L, MEAN * 5 / 4 + 80L);
    assertThat(counts.values())
        .as("no endpoint above 1.25 times the mean of %d, give or take 80%s", MEAN, all)
        .allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(MEAN * 5 / 4 + 80L));
  }

  /**
   * {@link #PER_CLIENT} connections from each node's client, the four clients at once; fails unless
   * every connection was answered. In the order of {@link #CLIENT_NODES}.
   */
  private static List<Answers> connectFromEveryZone(NetnsCluster cluster, Workload workload) {
    var started = Instant.now();
    var pool = Executors.newFixedThreadPool(CLIENT_NODES.size());
    try {
      var running = new ArrayList<CompletableFuture<Answers>>();
      for (var node : CLIENT_NODES) {
        running.add(CompletableFuture.supplyAsync(() -> connect(cluster, node, workload), pool));
      }
      var answers = running.stream().map(CompletableFuture::join).toList();
      System.out.printf(
          "netns e2e: %d connections to %s in %d ms, per endpoint %s%n",
          TOTAL,
          workload.name,
          Duration.between(started, Instant.now()).toMillis(),
          perEndpoint(answers));
      var all = Answers.describe(answers);
      assertThat(answers)
          .as("every connection is answered%s", all)
          .allSatisfy(fromNode -> assertThat(fromNode.allAnswered()).isTrue())
          .allSatisfy(fromNode -> assertThat(fromNode.answers()).hasSize(PER_CLIENT));
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@link #PER_CLIENT} connections from the node's client, in batches well within a minute. */
  private static Answers connect(NetnsCluster cluster, String node, Workload workload) {
    var client = cluster.clientOn(node);
    var answers = new ArrayList<Answers.Answer>();
    String target = null;
    for (int sent = 0; sent < PER_CLIENT; sent += BATCH) {
      var batch = cluster.burst(client, workload, Math.min(BATCH, PER_CLIENT - sent));
      answers.addAll(batch.answers());
      target = batch.target();
    }
    return new Answers(client.name(), target, answers);
  }

  /** How many connections each endpoint answered, over every client. */
  private static Map<String, Long> perEndpoint(List<Answers> answers) {
    var counts = new TreeMap<String, Long>();
    answers.forEach(
        fromNode -> fromNode.counts().forEach((server, n) -> counts.merge(server, n, Long::sum)));
    return counts;
  }
}
