package dev.proxima.bench;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.iptables.IptablesAssembler;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The proxy's own iptables mode: the same cold and partial syncs as in nftables mode, turned on
 * with {@code --iptables} once {@code run --mode iptables} exists. iptables-nft rules carry their
 * DNAT target as an xtables blob that nft monitor does not print, so a change counts as programmed
 * when the proxy's first sync after the write's acknowledgement has finished.
 */
final class IptablesModeBenchmarks {
  private IptablesModeBenchmarks() {}

  /** Whether this build's proxy offers the mode at all. */
  static boolean modeAvailable(Path proxyJar) {
    var help =
        Sh.run(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                proxyJar.toString(),
                "run",
                "--help"),
            "");
    // The --mode option's description (and its continuation line) names the modes it accepts.
    var lines = help.output().lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("--mode=")
          && !lines.get(i).strip().startsWith("[")
          && (lines.get(i) + (i + 1 < lines.size() ? lines.get(i + 1) : "")).contains("iptables")) {
        return true;
      }
    }
    return false;
  }

  /** The pure renderer's complete iptables-restore input for the benchmark node. */
  static String fullBuffer(SyntheticCluster cluster) {
    return IptablesRenderer.renderWithJumps(
            FamilySettings.of(IpFamily.IPV4, List.of()), RenderedRules.portRules(cluster))
        .filterAndNat();
  }

  /**
   * The tool's own cost of a partial sync: {@code changes} one-endpoint deltas, rendered by the
   * proxy's assembler as its partial syncs render them, each loaded with a bare {@code
   * iptables-restore --noflush} into {@code namespace}, which must hold {@link #fullBuffer} of the
   * same cluster. The same changes as {@link #partial}, so the two compare one to one.
   */
  static Stats bareDeltas(
      String namespace, SyntheticCluster cluster, int changes, int firstFreshIp) {
    var assembler = new IptablesAssembler(FamilySettings.of(IpFamily.IPV4, List.of()));
    assembler.replaceAll(RenderedRules.portRules(cluster), Map.of());
    var millis = new ArrayList<Double>();
    for (int change = 0; change < changes; change++) {
      int index = changedService(cluster, change);
      var ip = SyntheticCluster.ipv4(10 << 24 | 193 << 16, firstFreshIp + change);
      Map<ServicePortName, ServicePortRules> delta = new HashMap<>();
      RenderedRules.plannedAfter(cluster, index, PartialSyncProbe.changedSlice(cluster, index, ip))
          .forEach(p -> delta.put(p.port().name(), NftPlanRenderer.rules(p)));
      var buffer =
          assembler
              .update(delta)
              .orElseThrow(() -> new HarnessError("the change needs a full replacement"));
      millis.add(
          Sh.run(Sh.in(namespace, "iptables-restore", "--noflush"), buffer)
              .orThrow(List.of("iptables-restore of a delta"))
              .millis());
    }
    return new Stats(millis);
  }

  /** The Service whose endpoint change number {@code change} replaces. */
  private static int changedService(SyntheticCluster cluster, int change) {
    return (int) ((change * 7919L + 29) % cluster.serviceCount());
  }

  /**
   * {@link #bareDeltas} into a namespace of its own, loaded with the cluster's whole ruleset first:
   * for a cluster small enough that loading it costs little.
   */
  static Stats bareDeltas(
      Namespaces namespaces, SyntheticCluster cluster, int changes, int firstFreshIp) {
    var bare = namespaces.create("ipt-bare-" + cluster.serviceCount());
    try {
      Sh.run(Sh.in(bare, "iptables-restore", "--noflush"), fullBuffer(cluster))
          .orThrow(List.of("iptables-restore"));
      return bareDeltas(bare, cluster, changes, firstFreshIp);
    } finally {
      namespaces.delete(bare);
    }
  }

  /**
   * Cold full sync in iptables mode against a bare iptables-restore of the same rules.
   *
   * @return {@link #bareDeltas} of {@code changes} changes into the bare namespace, before it goes
   */
  static Stats cold(
      Namespaces namespaces,
      ApiServer api,
      Path work,
      Path jar,
      SyntheticCluster cluster,
      int changes,
      int firstFreshIp,
      List<Row> rows)
      throws IOException {
    var bare = namespaces.create("ipt-bare");
    double restore;
    Stats deltas;
    try {
      restore =
          Sh.run(Sh.in(bare, "iptables-restore", "--noflush"), fullBuffer(cluster))
              .orThrow(List.of("iptables-restore"))
              .millis();
      deltas = bareDeltas(bare, cluster, changes, firstFreshIp);
    } finally {
      namespaces.delete(bare);
    }
    var timer = NftTimer.iptablesRestore(work, "ipt-cold");
    try (var node =
        new ProxyNode(namespaces, "ipt-cold", api, work, jar, "iptables").timing(timer)) {
      var proxy = node.startAndAwaitSync(List.of());
      double total = node.firstSyncedAt() - proxy.startedMillis;
      var runs = timer.runs(proxy.startedMillis, node.firstSyncedAt());
      rows.add(
          longestRestore(
              "cold full sync, both families",
              cluster,
              runs,
              "bare iptables-restore of the whole buffer " + Row.ms(restore)));
      rows.add(
          Row.check(
              "iptables mode: cold full sync vs bare `iptables-restore` of the same rules (one run)",
              cluster.serviceCount() + " svc × 2 ep",
              Row.ms(total),
              "iptables-restore " + Row.ms(restore),
              Row.ratio(total, restore),
              "≤ 1.5×",
              total <= 1.5 * restore));
    }
    return deltas;
  }

  /** Partial syncs in iptables mode, in order; the caller compares the two cluster sizes. */
  static Stats partial(
      Namespaces namespaces,
      ApiServer api,
      Path work,
      Path jar,
      SyntheticCluster cluster,
      int changes,
      int firstFreshIp,
      List<Row> rows)
      throws IOException {
    var latencies = new ArrayList<Double>();
    var changed = new java.util.LinkedHashSet<Integer>();
    var timer = NftTimer.iptablesRestore(work, "ipt-p" + cluster.serviceCount());
    double changesFrom;
    try (var node =
        new ProxyNode(namespaces, "ipt-p" + cluster.serviceCount(), api, work, jar, "iptables")
            .timing(timer)) {
      node.startAndAwaitSync(List.of());
      changesFrom = System.currentTimeMillis();
      for (int change = 0; change < changes; change++) {
        int index = changedService(cluster, change);
        var ip = SyntheticCluster.ipv4(10 << 24 | 193 << 16, firstFreshIp + change);
        JarProcess.pause(1100);
        api.client().resource(PartialSyncProbe.changedSlice(cluster, index, ip)).update();
        long acknowledged = System.currentTimeMillis();
        node.proxy()
            .await(
                "iptables-mode sync after a change",
                Duration.ofSeconds(60),
                () -> node.lastSyncAt() >= acknowledged);
        latencies.add(node.lastSyncAt() - acknowledged);
        changed.add(index);
      }
    }
    // Put the slices back only now: a revert right after a change would start a sync that the
    // next change then waits behind for --min-sync-period, and that wait would be measured.
    for (int index : changed) {
      api.client().resource(cluster.slice(index)).update();
    }
    var all = timer.runs();
    var partials = all.stream().filter(run -> run.startMillis() >= changesFrom).toList();
    rows.add(
        longestRestore(
            "first sync (full) then "
                + changes
                + " partial syncs; partial only: "
                + text(NftTimer.longestTransaction(partials)),
            cluster,
            all,
            "-"));
    var stats = new Stats(latencies);
    rows.add(
        Row.check(
            "iptables mode: partial sync, change → sync finished (median of " + stats.size() + ")",
            cluster.serviceCount() + " svc × 2 ep",
            Row.ms(stats.median()),
            "-",
            "-",
            "≤ 50 ms",
            stats.median() <= 50));
    return stats;
  }

  /**
   * No long kernel transactions, in iptables mode: the longest {@code iptables-nft-restore} the
   * proxy ran, timed by a wrapper on its PATH (wrapper cost included), against the same 1 s bound
   * as nft transactions.
   */
  private static Row longestRestore(
      String what, SyntheticCluster cluster, List<NftTimer.Run> runs, String baseline) {
    var longest = NftTimer.longestTransaction(runs);
    long count = runs.stream().filter(NftTimer.Run::transaction).count();
    return Row.check(
        "Longest single iptables-restore, iptables mode (every restore of the proxy timed by"
            + " a wrapper on its PATH once it has read the input; "
            + count
            + " restores: "
            + what
            + ")",
        cluster.serviceCount() + " svc × 2 ep",
        text(longest),
        baseline,
        "-",
        "≤ 1 s",
        longest != null && longest.millis() <= 1000);
  }

  private static String text(NftTimer.Run run) {
    return run == null ? "none" : Row.ms(run.millis());
  }
}
