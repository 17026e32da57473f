package dev.proxima.bench;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Times partial syncs of a running proxy: replaces one endpoint of one Service at a time and times
 * the write until nft monitor reports the new endpoint in the kernel; the bare baseline loads the
 * same delta into a namespace that holds the same ruleset. Changes are spaced past the default 1 s
 * min-sync-period, so each one is synced as soon as it arrives, as a lone change on a quiet cluster
 * is. Remembers which slices it changed, so the caller can put them back.
 */
final class PartialSyncProbe {
  /**
   * @param latencies API server acknowledgement → element in the kernel, millis
   * @param fromRequest write request sent → element in the kernel, millis (mock server included)
   * @param bare bare {@code nft -f} of each delta, millis
   * @param missed changes not in the kernel 30 s after their write
   * @param unseen changes in the kernel that nft monitor never reported within 30 s (untimed)
   */
  record Result(Stats latencies, Stats fromRequest, Stats bare, int missed, int unseen) {}

  private final ApiServer api;
  private final Set<Integer> changed = new HashSet<>();
  private final int addressBlock;
  private int freshIps;

  /**
   * @param addressBlock the second octet of the fresh endpoint addresses (10.x.0.0/16), distinct
   *     from the cluster's own and from other probes'
   */
  PartialSyncProbe(ApiServer api, int addressBlock) {
    this.api = api;
    this.addressBlock = addressBlock;
  }

  Result measure(
      ProxyNode node, SyntheticCluster cluster, String baseline, RenderedRules rules, int changes) {
    var latencies = new ArrayList<Double>();
    var fromRequest = new ArrayList<Double>();
    var bare = new ArrayList<Double>();
    int missed = 0;
    int unseen = 0;
    try (var monitor = new NftMonitor(node.namespace)) {
      for (int change = 0; change < changes; change++) {
        int index = (int) ((change * 7919L + 13) % cluster.serviceCount());
        var ip = SyntheticCluster.ipv4(10 << 24 | addressBlock << 16, ++freshIps);
        EndpointSlice slice = changedSlice(cluster, index, ip);
        JarProcess.pause(1100);
        long sent = System.currentTimeMillis();
        api.client().resource(slice).update();
        long acknowledged = System.currentTimeMillis();
        changed.add(index);
        long inKernel;
        try {
          inKernel =
              monitor.awaitEvent(
                  sent, Duration.ofSeconds(30), "add element", ": " + ip + " . 8080");
        } catch (HarnessError missing) {
          // A change the proxy never programmed is a finding, not a harness failure. nft monitor
          // has been seen to miss an event, so ask the kernel itself before counting it.
          if (inKernel(node.namespace, cluster, index, ip)) {
            unseen++;
            Progress.log("change to " + ip + " is in the kernel, but nft monitor never said so");
          } else {
            missed++;
            Progress.log(
                "change to " + ip + " not in the kernel after 30 s:\n" + node.diagnostics());
          }
          monitor.clear();
          continue;
        }
        // From the API server's acknowledgement: the CRUD mock's own work on every write grows
        // with the cluster, a cost a real API server does not have.
        latencies.add((double) Math.max(0, inKernel - acknowledged));
        fromRequest.add((double) (inKernel - sent));
        bare.add(
            Sh.run(Sh.in(baseline, "nft", "-f", "-"), rules.delta(index, slice))
                .orThrow(List.of("nft -f delta"))
                .millis());
        monitor.clear();
      }
    }
    if (latencies.isEmpty()) {
      throw new HarnessError("none of " + changes + " changes reached the kernel");
    }
    return new Result(
        new Stats(latencies), new Stats(fromRequest), new Stats(bare), missed, unseen);
  }

  /**
   * Whether the kernel holds {@code ip} as Service {@code index}'s last endpoint: fresh addresses
   * sort after every generated one, and the Service's endpoints are all in use (no hints yet).
   */
  private static boolean inKernel(
      String namespace, SyntheticCluster cluster, int index, String ip) {
    var key =
        SyntheticCluster.clusterIp(index) + " . tcp . 80 . " + (cluster.endpointsPerService() - 1);
    return Sh.run(
            Sh.in(
                namespace,
                "nft",
                "get",
                "element",
                "ip",
                "proxima",
                // The map of the lb-N chain of the Service's endpoint count.
                "lb-" + cluster.endpointsPerService(),
                "{ " + key + " }"),
            "")
        .output()
        .contains(ip + " . 8080");
  }

  /** The slices changed so far, forgotten once returned. */
  Set<Integer> takeChanged() {
    var taken = Set.copyOf(changed);
    changed.clear();
    return taken;
  }

  /**
   * Service {@code index}'s slice with its second endpoint (its only one, if alone) at {@code ip}.
   */
  static EndpointSlice changedSlice(SyntheticCluster cluster, int index, String ip) {
    var slice = cluster.slice(index);
    var endpoints = slice.getEndpoints();
    endpoints.get(Math.min(1, endpoints.size() - 1)).setAddresses(List.of(ip));
    return slice;
  }
}
