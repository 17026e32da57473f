package dev.proxima.bench;

import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.PlanWarnings;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The worst shapes one tenant can give a Service, each beside a few ordinary Services, rendered
 * offline exactly as the {@code render} command renders them (plan, then the nft or iptables
 * renderer): the render time, the script's size and, with root, the bare load of that script into a
 * scratch namespace. No proxy process runs, so every row is cheap.
 */
final class HostileShapes {
  /** Ordinary Services beside the hostile one, 10 endpoints each. */
  private static final int ORDINARY = 5;

  /** The hostile Service's index: far from the ordinary ones, so their addresses never meet. */
  private static final int HOSTILE = 1_000;

  /** Renders per figure, after one unmeasured render that warms the JIT; the median is printed. */
  private static final int RENDERS = 3;

  /**
   * Longer iptables-restore inputs are not loaded: a bare load grows faster than its length (about
   * 8 s at 50,000 lines in a scratch namespace), and the render's size already tells what it costs.
   */
  private static final int MOST_IPTABLES_LINES_LOADED = 20_000;

  /**
   * The proxy cuts no list of a Service: the API server's object-size limit does (about 20,000
   * ranges fit in one object), so that is the most ranges the proxy can be given.
   */
  static final int MOST_SOURCE_RANGES = 20_000;

  private final boolean smoke;
  private final boolean kernel;
  private final Namespaces namespaces;
  private final List<Row> rows;
  private final SyntheticCluster ordinary = new SyntheticCluster(ORDINARY, 10, null);

  /**
   * @param kernel whether this machine can load the scripts (root, nft, iptables-restore)
   */
  HostileShapes(Scale scale, boolean kernel, Namespaces namespaces, List<Row> rows) {
    this.smoke = scale.smoke();
    this.kernel = kernel;
    this.namespaces = namespaces;
    this.rows = rows;
  }

  void run() {
    externalIps();
    sourceRanges();
    manyPorts();
    warningChurn();
  }

  /** The same Service with and without 100 externalIPs: what the addresses add to its rules. */
  private void externalIps() {
    int endpoints = smoke ? 100 : 1_000;
    int ips = smoke ? 10 : 100;
    int ports = 10;
    var withoutShape = hostile(ports, endpoints, ips(0), List.of());
    var withShape = hostile(ports, endpoints, ips(ips), List.of());
    // The first renders of the run pay for the JIT: warm both up so neither side carries it.
    for (int i = 0; i < RENDERS; i++) {
      renderNft(withoutShape);
      renderNft(withShape);
    }
    var without = measure(withoutShape);
    var with = measure(withShape);
    String scale = "1 svc × " + ports + " ports × " + endpoints + " ep, " + ips + " externalIPs";
    double constantBytes = 64 * 1024;
    double constantMillis = 5;
    boolean pass =
        with.nftBytes <= 1.5 * without.nftBytes + constantBytes
            && with.nftMillis <= 1.5 * without.nftMillis + constantMillis;
    rows.add(
        Row.check(
            "Hostile: externalIPs, nft render against the same Service without them ("
                + with.nftText()
                + "; time "
                + Row.ratio(with.nftMillis, without.nftMillis)
                + ")",
            scale,
            Row.ms(with.nftMillis) + ", " + kib(with.nftBytes),
            "without: " + Row.ms(without.nftMillis) + ", " + kib(without.nftBytes),
            Row.ratio(with.nftBytes, without.nftBytes),
            "≤ 1.5× + c (64 KiB, 5 ms)",
            pass));
    rows.add(iptablesRow("Hostile: externalIPs", scale, with, without));
  }

  /** A LoadBalancer Service with as many source ranges as one object holds, on 10 ports. */
  private void sourceRanges() {
    int ranges = smoke ? 200 : MOST_SOURCE_RANGES;
    int ports = 10;
    int endpoints = smoke ? 10 : 100;
    var shape = measure(hostile(ports, endpoints, List.of(), cidrs(ranges)));
    String scale = "1 LB svc × " + ports + " ports, " + ranges + " source ranges";
    rows.add(nftRow("Hostile: loadBalancerSourceRanges", scale, shape));
    rows.add(iptablesRow("Hostile: loadBalancerSourceRanges", scale, shape, null));
  }

  /** One Service with 100 ports and 1,000 endpoints: what one render allocates on the heap. */
  private void manyPorts() {
    int ports = 100;
    int endpoints = smoke ? 100 : 1_000;
    var shape = measure(hostile(ports, endpoints, List.of(), List.of()));
    String scale = "1 svc × " + ports + " ports × " + endpoints + " ep";
    rows.add(nftRow("Hostile: many ports", scale, shape));
    rows.add(iptablesRow("Hostile: many ports", scale, shape, null));
  }

  /**
   * A namespace that replaces all its Services with new ones, every one with invalid fields, on
   * every full sync: the warning lines the proxy logs stay bounded however many there are.
   */
  private void warningChurn() {
    int services = smoke ? 200 : 10_000;
    int rounds = 3;
    var warnings = new PlanWarnings();
    var planMillis = new ArrayList<Double>();
    int raw = 0;
    int grouped = 0;
    int mostTold = 0;
    int reasons = 0;
    int toldUnchanged = 0;
    for (int round = 0; round <= rounds; round++) {
      // The last round repeats the one before: nothing changed, so nothing may be told again.
      var batch = churned(Math.min(round, rounds - 1), services);
      long started = System.nanoTime();
      var plan = plan(batch, List.of());
      planMillis.add((System.nanoTime() - started) / 1e6);
      int[] told = {0};
      warnings.full(plan.warnings(), group -> told[0]++);
      if (round < rounds) {
        mostTold = Math.max(mostTold, told[0]);
      } else {
        toldUnchanged = told[0];
      }
      raw = plan.warnings().size();
      grouped = PlanWarnings.lines(plan.warnings()).size();
      reasons = warnings.countsByReason().size();
    }
    int bound = PlanWarnings.MAX_GROUPS + reasons;
    var plans = new Stats(planMillis);
    rows.add(
        Row.check(
            String.format(
                "Hostile: warning churn, all Services replaced by new invalid ones on each of %d"
                    + " full syncs, then one unchanged (%d warnings per plan, %d lines in"
                    + " render/explain; plan median %s, min–max %s–%s)",
                rounds,
                raw,
                grouped,
                Row.ms(plans.median()),
                Row.ms(plans.min()),
                Row.ms(plans.max())),
            services + " svc, 1 namespace",
            mostTold + " log lines per full sync at most, " + toldUnchanged + " unchanged",
            "-",
            "-",
            "bounded: ≤ " + bound + " per sync, none unchanged",
            mostTold <= bound && toldUnchanged == 0));
  }

  /** What one shape costs: nft and iptables render, size and bare load. */
  private record Figures(
      double nftMillis,
      long nftBytes,
      long nftLines,
      long nftAllocated,
      Double nftLoad,
      double iptablesMillis,
      long iptablesBytes,
      long iptablesLines,
      Double iptablesLoad) {
    String nftText() {
      return String.format(
          "%,d lines, %s; %s allocated per render", nftLines, kib(nftBytes), mib(nftAllocated));
    }
  }

  private String renderNft(Cluster cluster) {
    var node = cluster.ordinary.nodes().get(0);
    var addresses = node.getStatus().getAddresses().stream().map(a -> a.getAddress()).toList();
    return NftPlanRenderer.render(
            plan(cluster.services, cluster.slices), RuleSettings.defaults(), addresses)
        .script();
  }

  private Figures measure(Cluster cluster) {
    String[] nft = {null};
    long[] allocated = {0};
    double nftMillis =
        median(
            () -> {
              long before = allocatedBytes();
              nft[0] = renderNft(cluster);
              allocated[0] = allocatedBytes() - before;
              return nft[0];
            });
    String[] iptables = {null};
    double iptablesMillis =
        median(
            () -> {
              var plan = plan(cluster.services, cluster.slices);
              iptables[0] =
                  IptablesRenderer.renderWithJumps(
                          FamilySettings.of(IpFamily.IPV4, List.of()),
                          plan.ports().stream().map(NftPlanRenderer::rules).toList())
                      .filterAndNat();
              return iptables[0];
            });
    return new Figures(
        nftMillis,
        nft[0].length(),
        nft[0].lines().count(),
        allocated[0],
        load("nft", nft[0], "nft", "-f", "-"),
        iptablesMillis,
        iptables[0].length(),
        iptables[0].lines().count(),
        iptables[0].lines().count() > MOST_IPTABLES_LINES_LOADED
            ? null
            : load("ipt", iptables[0], "iptables-restore", "--noflush"));
  }

  /** The bare load of {@code script} into a fresh scratch namespace, or null without root. */
  private Double load(String suffix, String script, String... command) {
    if (!kernel) {
      return null;
    }
    var namespace = namespaces.create("h-" + suffix);
    try {
      return Sh.run(Sh.in(namespace, command), script).orThrow(List.of(command)).millis();
    } finally {
      namespaces.delete(namespace);
    }
  }

  private static double median(Supplier<String> render) {
    render.get();
    var millis = new ArrayList<Double>();
    for (int i = 0; i < RENDERS; i++) {
      long started = System.nanoTime();
      render.get();
      millis.add((System.nanoTime() - started) / 1e6);
    }
    return new Stats(millis).median();
  }

  /** Bytes this thread allocated so far, or 0 where the JVM cannot tell. */
  private static long allocatedBytes() {
    return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
        ? threads.getCurrentThreadAllocatedBytes()
        : 0;
  }

  private Row nftRow(String what, String scale, Figures shape) {
    return Row.report(
        what + ", nft render (" + shape.nftText() + ")",
        scale,
        Row.ms(shape.nftMillis) + ", " + kib(shape.nftBytes),
        shape.nftLoad == null
            ? "bare nft -f: needs root in the harness namespace"
            : "bare nft -f " + Row.ms(shape.nftLoad),
        "-");
  }

  private Row iptablesRow(String what, String scale, Figures shape, Figures without) {
    return Row.report(
        String.format(
            "%s, iptables render (%,d lines%s)",
            what,
            shape.iptablesLines,
            without == null
                ? ""
                : String.format(
                    "; without: %s, %s",
                    Row.ms(without.iptablesMillis), kib(without.iptablesBytes))),
        scale,
        Row.ms(shape.iptablesMillis) + ", " + kib(shape.iptablesBytes),
        shape.iptablesLoad == null
            ? kernel
                ? "bare iptables-restore: not loaded above " + MOST_IPTABLES_LINES_LOADED + " lines"
                : "bare iptables-restore: needs root in the harness namespace"
            : "bare iptables-restore " + Row.ms(shape.iptablesLoad),
        without == null ? "-" : Row.ratio(shape.iptablesBytes, without.iptablesBytes));
  }

  private static String kib(long bytes) {
    return String.format("%,.0f KiB", bytes / 1024.0);
  }

  private static String mib(long bytes) {
    return bytes == 0 ? "unknown" : String.format("%.1f MiB", bytes / (1024.0 * 1024));
  }

  private NodePlanner.FamilyPlan plan(List<Service> services, List<EndpointSlice> slices) {
    return NodePlanner.plan(
        IpFamily.IPV4,
        SyntheticCluster.PROXY_NODE,
        ordinary.nodes().get(0),
        null,
        services,
        slices,
        AddressPolicy.ofNode(ordinary.nodes().get(0)),
        ZoneDemand.unknown());
  }

  private record Cluster(
      SyntheticCluster ordinary, List<Service> services, List<EndpointSlice> slices) {}

  /**
   * The ordinary Services and one hostile Service: {@code ports} TCP ports, one slice of {@code
   * endpoints}, and the given externalIPs; with source ranges it is a LoadBalancer with one ingress
   * IP.
   */
  private Cluster hostile(
      int ports, int endpoints, List<String> externalIps, List<String> sourceRanges) {
    var services = new ArrayList<>(ordinary.services());
    var slices = new ArrayList<>(ordinary.slices());
    String name = SyntheticCluster.serviceName(HOSTILE);
    String ip = SyntheticCluster.clusterIp(HOSTILE);
    var servicePorts = new ArrayList<ServicePort>();
    var slicePorts = new ArrayList<EndpointPort>();
    boolean loadBalancer = !sourceRanges.isEmpty();
    for (int p = 0; p < ports; p++) {
      var port =
          new ServicePortBuilder()
              .withName("p" + p)
              .withPort(1_000 + p)
              .withProtocol("TCP")
              .withNewTargetPort(10_000 + p);
      if (loadBalancer) {
        port.withNodePort(30_000 + p);
      }
      servicePorts.add(port.build());
      slicePorts.add(
          new EndpointPortBuilder()
              .withName("p" + p)
              .withPort(10_000 + p)
              .withProtocol("TCP")
              .build());
    }
    var spec =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("tenant")
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withType(loadBalancer ? "LoadBalancer" : "ClusterIP")
            .withClusterIP(ip)
            .withClusterIPs(ip)
            .withIpFamilies("IPv4")
            .withSelector(Map.of("app", name))
            .withPorts(servicePorts)
            .withExternalIPs(externalIps)
            .withLoadBalancerSourceRanges(sourceRanges)
            .endSpec();
    if (loadBalancer) {
      spec.withNewStatus()
          .withNewLoadBalancer()
          .addNewIngress()
          .withIp("192.0.2.10")
          .endIngress()
          .endLoadBalancer()
          .endStatus();
    }
    services.add(spec.build());
    var members = new ArrayList<Endpoint>(endpoints);
    for (int e = 0; e < endpoints; e++) {
      members.add(
          SyntheticCluster.endpoint(
              SyntheticCluster.ipv4(10 << 24 | 192 << 16, e + 1),
              SyntheticCluster.zoneOf(e),
              SyntheticCluster.nodeOf(HOSTILE, e)));
    }
    slices.add(
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("tenant")
            .withName(name + "-abcde")
            .withLabels(
                Map.of(
                    dev.proxima.model.Labels.SERVICE_NAME,
                    name,
                    dev.proxima.model.Labels.MANAGED_BY,
                    dev.proxima.model.Labels.UPSTREAM_SLICE_CONTROLLER))
            .endMetadata()
            .withAddressType("IPv4")
            .withPorts(slicePorts)
            .withEndpoints(members)
            .build());
    return new Cluster(ordinary, services, slices);
  }

  /** {@code count} externalIPs from 198.18.0.0/15, no node's address. */
  private static List<String> ips(int count) {
    var ips = new ArrayList<String>(count);
    for (int i = 0; i < count; i++) {
      ips.add(SyntheticCluster.ipv4(198 << 24 | 18 << 16, i + 1));
    }
    return ips;
  }

  /** {@code count} disjoint /30 ranges from 100.64.0.0/10: none nests in another, none is cut. */
  private static List<String> cidrs(int count) {
    var cidrs = new ArrayList<String>(count);
    for (int i = 0; i < count; i++) {
      cidrs.add(SyntheticCluster.ipv4(100 << 24 | 64 << 16, 4 * i) + "/30");
    }
    return cidrs;
  }

  /**
   * Round {@code round}'s Services of the churning namespace: new names each round, each with a
   * source range that is no CIDR and an affinity timeout above the API's limit.
   */
  private static List<Service> churned(int round, int count) {
    var services = new ArrayList<Service>(count);
    for (int i = 0; i < count; i++) {
      String ip = SyntheticCluster.ipv4(10 << 24 | 100 << 16, i + 1);
      services.add(
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace("churn")
              .withName("churn-" + round + "-" + i)
              .endMetadata()
              .withNewSpec()
              .withType("ClusterIP")
              .withClusterIP(ip)
              .withClusterIPs(ip)
              .withIpFamilies("IPv4")
              .withSessionAffinity("ClientIP")
              .withNewSessionAffinityConfig()
              .withNewClientIP()
              .withTimeoutSeconds(1_000_000)
              .endClientIP()
              .endSessionAffinityConfig()
              .withLoadBalancerSourceRanges("not-a-cidr-" + i)
              .addNewPort()
              .withName("http")
              .withPort(80)
              .withProtocol("TCP")
              .withNewTargetPort(8080)
              .endPort()
              .endSpec()
              .build());
    }
    return services;
  }
}
