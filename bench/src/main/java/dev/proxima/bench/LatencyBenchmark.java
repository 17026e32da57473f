package dev.proxima.bench;

import dev.proxima.model.Annotations;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.ObserveLocality;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHintsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * First-packet latency (and the bare iptables restore the iptables mode is compared with): a client
 * namespace connects to Service 0's ClusterIP through a node namespace holding the rules for 10 or
 * 10,000 Services, to a server in a pod namespace. Rounds alternate between the sizes so machine
 * noise hits both alike. The rules are the proxy's own rendering, loaded with nft -f (nftables) or
 * iptables-restore (the pure iptables renderer, whose rules are what the proxy's iptables mode
 * loads).
 */
final class LatencyBenchmark {
  private final Scale scale;
  private final Namespaces namespaces;
  private final Path benchJar;
  private final List<Row> rows;
  private final boolean iptablesMode;
  private String node;
  private String client;
  private Process server;

  LatencyBenchmark(
      Scale scale, Namespaces namespaces, Path benchJar, List<Row> rows, boolean iptablesMode) {
    this.scale = scale;
    this.namespaces = namespaces;
    this.benchJar = benchJar;
    this.rows = rows;
    this.iptablesMode = iptablesMode;
  }

  void run() throws IOException {
    var sizes = scale.latencyServices();
    var clusters = sizes.stream().map(n -> new SyntheticCluster(n, 2, null)).toList();
    try {
      topology(clusters.get(0));
      var direct = new ArrayList<Double>();
      Map<Integer, List<double[]>> nft = new LinkedHashMap<>();
      var scripts = clusters.stream().map(c -> new RenderedRules(c).fullScript()).toList();
      int rounds = scale.latencyRounds();
      for (int round = 0; round < rounds; round++) {
        direct.add(probe(clusters.get(0).endpointIp(0, 0), 8080)[0]);
        for (int c = 0; c < clusters.size(); c++) {
          Sh.run(Sh.in(node, "nft", "-f", "-"), scripts.get(c)).orThrow(List.of("nft -f"));
          nft.computeIfAbsent(clusters.get(c).serviceCount(), k -> new ArrayList<>())
              .add(probe(SyntheticCluster.clusterIp(0), 80));
        }
        // Rounds whose ratios fall on both sides of the target get as many rounds again.
        if (round == rounds - 1 && rounds == scale.latencyRounds() && crosses(sizes, nft)) {
          rounds *= 2;
          Progress.log("first-packet latency: the ratio crosses its target; " + rounds + " rounds");
        }
      }
      rows("nftables", sizes, nft, new Stats(direct).median(), true);
      countingCost(clusters.get(clusters.size() - 1));
      spillCost(clusters.get(clusters.size() - 1));
      Namespaces.exec(node, "nft", "delete", "table", "ip", "proxima");

      Map<Integer, List<double[]>> iptables = new LinkedHashMap<>();
      var restoreMillis = new LinkedHashMap<Integer, Double>();
      // One round: loading the iptables layout at 10,000 Services takes minutes (see the row).
      for (int round = 0; round < 1; round++) {
        for (var cluster : clusters) {
          flushIptables();
          var buffer = IptablesModeBenchmarks.fullBuffer(cluster);
          var run =
              Sh.run(Sh.in(node, "iptables-restore", "--noflush"), buffer)
                  .orThrow(List.of("iptables-restore"));
          restoreMillis.merge(cluster.serviceCount(), run.millis(), Math::min);
          iptables
              .computeIfAbsent(cluster.serviceCount(), k -> new ArrayList<>())
              .add(probe(SyntheticCluster.clusterIp(0), 80));
        }
      }
      flushIptables();
      rows(
          "iptables (pure renderer + iptables-restore; one round)",
          sizes,
          iptables,
          new Stats(direct).median(),
          false);
      int largest = sizes.get(sizes.size() - 1);
      rows.add(
          Row.report(
              "iptables: bare `iptables-restore --noflush` (iptables-nft) of the pure renderer's full"
                  + " output into an empty namespace (one run; the baseline for the mode's cold sync)",
              largest + " svc × 2 ep",
              Row.ms(restoreMillis.get(largest)),
              "-",
              "-"));
    } finally {
      if (server != null) {
        server.destroy();
      }
    }
    if (!iptablesMode) {
      rows.add(
          Row.pending(
              "First-packet latency, the proxy's iptables mode",
              sizes.get(sizes.size() - 1) + " svc",
              "needs `--mode iptables` (rerun with --iptables)"));
    }
  }

  /**
   * The locality counting's cost bound: the largest cluster's rules with locality counting off (no
   * counters) and on for every Service port (the node's counters plus each port's).
   */
  private void countingCost(SyntheticCluster cluster) {
    costRows(
        "with locality counting on (the node's counters and every Service port's) vs off",
        "off",
        cluster,
        new RenderedRules(cluster, ObserveLocality.OFF).fullScript(),
        new RenderedRules(cluster, ObserveLocality.ALL).fullScript(),
        "locality counting cost");
  }

  /**
   * What zone spill-over adds to a first packet: the largest cluster's rules with Service 0 (the
   * probed one) hinted PreferSameZone, once without the annotation and once opted in under a zone
   * demand that makes the node's zone keep p = 0.75 of its new connections: the extra random choice
   * in front of the zone's endpoints, and for the rest the choice among all of them.
   */
  private void spillCost(SyntheticCluster cluster) {
    // Service 0's endpoints are in zone-a (the node's zone) and zone-b; zone-a's demand of 0.6 on
    // one of two endpoints is 1.2 times the mean before zone-c spreads its 0.2 onto it.
    var demand = ZoneDemand.ofRatios(Map.of("zone-a", 0.6, "zone-b", 0.2, "zone-c", 0.2));
    var without = spillScript(cluster, demand, false);
    var with = spillScript(cluster, demand, true);
    if (with.equals(without)) {
      throw new HarnessError("Service 0 does not spill with the annotation: no row to measure");
    }
    costRows(
        "with Service 0 spilling over zones (p = 0.75) vs the same PreferSameZone Service without"
            + " the annotation",
        "without spill-over",
        cluster,
        without,
        with,
        "spill-over cost");
  }

  private static String spillScript(SyntheticCluster cluster, ZoneDemand demand, boolean opted) {
    var services = new ArrayList<>(cluster.services());
    var zonal =
        new ServiceBuilder(services.get(0))
            .editSpec()
            .withTrafficDistribution("PreferSameZone")
            .endSpec()
            .build();
    if (opted) {
      zonal.getMetadata().setAnnotations(Map.of(Annotations.ZONE_SPILL_OVER, "true"));
    }
    services.set(0, zonal);
    var slices = new ArrayList<>(cluster.slices());
    var hinted = new EndpointSliceBuilder(slices.get(0)).build();
    hinted
        .getEndpoints()
        .forEach(
            endpoint ->
                endpoint.setHints(
                    new EndpointHintsBuilder().addNewForZone(endpoint.getZone()).build()));
    slices.set(0, hinted);
    return new RenderedRules(cluster, services, slices, demand).fullScript();
  }

  /**
   * Two rows (p50 and p99) comparing the first packet under {@code withScript} against {@code
   * withoutScript}, loaded in alternation so machine noise hits both alike; more rounds when the
   * per-round ratios fall on both sides of 1.1×.
   */
  private void costRows(
      String what,
      String baselineName,
      SyntheticCluster cluster,
      String withoutScript,
      String withScript,
      String progressName) {
    var scripts = List.of(withoutScript, withScript);
    var without = new ArrayList<double[]>();
    var with = new ArrayList<double[]>();
    int rounds = scale.latencyRounds();
    for (int round = 0; round < rounds; round++) {
      for (int mode = 0; mode < 2; mode++) {
        Sh.run(Sh.in(node, "nft", "-f", "-"), scripts.get(mode)).orThrow(List.of("nft -f"));
        (mode == 0 ? without : with).add(probe(SyntheticCluster.clusterIp(0), 80));
      }
      if (round == rounds - 1 && rounds == scale.latencyRounds()) {
        var byMode = Map.<Integer, List<double[]>>of(0, without, 1, with);
        if (crosses(List.of(0, 1), byMode)) {
          rounds *= 2;
          Progress.log(progressName + ": the ratio crosses its target; " + rounds + " rounds");
        }
      }
    }
    var byMode = Map.<Integer, List<double[]>>of(0, without, 1, with);
    String[] names = {"p50", "p99"};
    for (int q = 0; q < 2; q++) {
      final int which = q;
      double a = new Stats(without.stream().map(s -> s[which]).toList()).median();
      double b = new Stats(with.stream().map(s -> s[which]).toList()).median();
      var ratios = roundRatios(List.of(0, 1), byMode, q);
      rows.add(
          Row.check(
              "First-packet (connect) latency "
                  + names[q]
                  + " "
                  + what
                  + ", nftables (median of "
                  + without.size()
                  + " alternating rounds × "
                  + scale.latencySamples()
                  + String.format(
                      " connects; ratio per round %.2f–%.2f×)", ratios.min(), ratios.max()),
              cluster.serviceCount() + " svc",
              micros(b),
              baselineName + ": " + micros(a),
              Row.ratio(b, a),
              "≤ 1.1×",
              b <= 1.1 * a));
    }
  }

  /** Whether the per-round ratios (p50 or p99, large over small) fall on both sides of 1.1×. */
  private static boolean crosses(List<Integer> sizes, Map<Integer, List<double[]>> samples) {
    for (int q = 0; q < 2; q++) {
      var ratios = roundRatios(sizes, samples, q);
      if (ratios.min() <= 1.1 && ratios.max() > 1.1) {
        return true;
      }
    }
    return false;
  }

  /** Per round, the large size's figure over the small size's (quantile q: 0 p50, 1 p99). */
  private static Stats roundRatios(
      List<Integer> sizes, Map<Integer, List<double[]>> samples, int q) {
    var small = samples.get(sizes.get(0));
    var large = samples.get(sizes.get(sizes.size() - 1));
    var ratios = new ArrayList<Double>();
    for (int r = 0; r < Math.min(small.size(), large.size()); r++) {
      ratios.add(large.get(r)[q] / small.get(r)[q]);
    }
    return new Stats(ratios);
  }

  private void rows(
      String mode,
      List<Integer> sizes,
      Map<Integer, List<double[]>> samples,
      double direct,
      boolean target) {
    int small = sizes.get(0);
    int large = sizes.get(sizes.size() - 1);
    String[] names = {"p50", "p99"};
    for (int q = 0; q < 2; q++) {
      final int which = q;
      double a = new Stats(samples.get(small).stream().map(s -> s[which]).toList()).median();
      double b = new Stats(samples.get(large).stream().map(s -> s[which]).toList()).median();
      String benchmark =
          "First-packet (connect) latency "
              + names[q]
              + ", "
              + mode
              + " (median of "
              + samples.get(small).size()
              + " rounds × "
              + scale.latencySamples()
              + " connects; straight to the pod: p50 "
              + micros(direct)
              + String.format(
                  "; ratio per round %.2f–%.2f×",
                  roundRatios(sizes, samples, q).min(), roundRatios(sizes, samples, q).max())
              + ")";
      String scaleText = large + " vs " + small + " svc";
      if (target) {
        rows.add(
            Row.check(
                benchmark,
                scaleText,
                micros(b),
                small + " svc: " + micros(a),
                Row.ratio(b, a),
                "≤ 1.1×",
                b <= 1.1 * a));
      } else {
        rows.add(
            Row.report(
                benchmark, scaleText, micros(b), small + " svc: " + micros(a), Row.ratio(b, a)));
      }
    }
  }

  static String micros(double nanos) {
    return String.format("%.0f µs", nanos / 1000);
  }

  private void flushIptables() {
    for (var table : List.of("nat", "filter")) {
      Sh.run(Sh.in(node, "iptables", "-t", table, "-F"), "");
      Sh.run(Sh.in(node, "iptables", "-t", table, "-X"), "");
    }
  }

  /** p50 and p99 connect time in nanoseconds. */
  private double[] probe(String ip, int port) {
    var run =
        Sh.run(
                Sh.in(
                    client,
                    java(),
                    "-cp",
                    benchJar.toString(),
                    ConnectProbe.class.getName(),
                    "connect",
                    ip,
                    Integer.toString(port),
                    Integer.toString(scale.latencySamples())),
                "")
            .orThrow(List.of("connect probe"));
    var values = run.output().lines().filter(l -> !l.isBlank()).map(Double::parseDouble).toList();
    var stats = new Stats(values);
    return new double[] {stats.median(), stats.percentile(99)};
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * client ─veth─ node ─veth─ pod. The pod answers on Service 0's endpoint addresses; the node
   * forwards and holds the rules. No bridge, so no br_netfilter dependency.
   */
  private void topology(SyntheticCluster cluster) throws IOException {
    node = namespaces.create("lat-node");
    client = namespaces.create("lat-client");
    var pod = namespaces.create("lat-pod");
    Namespaces.exec(node, "sysctl", "-qw", "net.ipv4.ip_forward=1");
    var toClient = namespaces.connect(node, client);
    Namespaces.exec(client, "ip", "route", "add", "default", "via", toClient[0]);
    var toPod = namespaces.connect(node, pod);
    Namespaces.exec(pod, "ip", "route", "add", "default", "via", toPod[0]);
    for (int e = 0; e < 2; e++) {
      var ip = cluster.endpointIp(0, e);
      Namespaces.exec(pod, "ip", "addr", "add", ip + "/32", "dev", toPod[3]);
      Namespaces.exec(node, "ip", "route", "add", ip + "/32", "via", toPod[1]);
    }
    server =
        new ProcessBuilder(
                Sh.in(
                    pod,
                    java(),
                    "-cp",
                    benchJar.toString(),
                    ConnectProbe.class.getName(),
                    "serve",
                    "8080"))
            .redirectErrorStream(true)
            .start();
    var ready =
        new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream()))
            .readLine();
    if (!"listening".equals(ready)) {
      throw new HarnessError("the probe server did not start: " + ready);
    }
  }
}
