package dev.proxima.e2e.netns;

import static org.awaitility.Awaitility.await;

import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.testing.ReachableApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The test cluster: namespaces and links ({@link Topology}), the API server with its relay into the
 * fabric, the real controller jar in the root namespace, the real proxy jar inside every node
 * namespace, and the server pods ({@link ServerPods}). The harness plays kubelet and the upstream
 * slice writer ({@link ClusterObjects}). One cluster serves every scenario of a run; each scenario
 * brings its own Services.
 */
final class NetnsCluster implements AutoCloseable {
  // The ports both kinds of components bind in a node's namespace (the manifests' too).
  static final int HEALTHZ_PORT = JarComponents.HEALTHZ_PORT;
  static final int METRICS_PORT = JarComponents.METRICS_PORT;

  final Layout layout;
  private final Path workDir;
  // HostTools leaves its input and output files here; deleted with the cluster, logs stay.
  private final Path scratch;
  private final Topology topology;
  private final Clients clients;
  // The nodes' kubeconfig names the relay in the fabric; the controller's names loopback.
  private final Path kubeconfig;
  private final Path controllerKubeconfig;
  private final Function<Components.Wiring, Components> componentsFactory;
  private Components components;
  private ApiRelay relay;
  private ApiServer api;
  private KubernetesClient kube;
  private Process controller;
  private final Map<Layout.Node, Process> proxies = new LinkedHashMap<>();
  private ClusterObjects objects;
  private ServerPods servers;
  private ProxyMode mode;
  private boolean closed;

  private NetnsCluster(
      Layout layout, Path workDir, Function<Components.Wiring, Components> componentsFactory) {
    this.layout = layout;
    this.componentsFactory = componentsFactory;
    this.workDir = workDir;
    this.scratch = workDir.resolve("scratch");
    try {
      Files.createDirectories(scratch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.topology = new Topology(layout, scratch);
    this.clients = new Clients(scratch);
    this.kubeconfig = workDir.resolve("kubeconfig");
    this.controllerKubeconfig = workDir.resolve("controller-kubeconfig");
  }

  /**
   * Builds everything with the jars as processes; see {@link #start(String, ProxyMode, Function)}.
   */
  static NetnsCluster start(String prefix, ProxyMode mode) {
    return start(prefix, mode, JarComponents::new);
  }

  /** Builds everything; on any failure tears down what was built before rethrowing. */
  static NetnsCluster start(
      String prefix, ProxyMode mode, Function<Components.Wiring, Components> components) {
    Path workDir;
    try {
      workDir = Files.createTempDirectory(prefix + "-e2e-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    var cluster = new NetnsCluster(new Layout(prefix), workDir, components);
    var hook = new Thread(cluster::close, "netns-e2e-teardown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      cluster.build(mode);
      return cluster;
    } catch (RuntimeException | Error failure) {
      System.err.println(cluster.diagnostics());
      cluster.close();
      throw failure;
    }
  }

  private void build(ProxyMode proxyMode) {
    var started = Instant.now();
    topology.build();
    api = ApiServer.start();
    kube = api.client();
    var apiSocket = workDir.resolve("api.sock");
    relay = ApiRelay.start(layout.fabric(), api.port(), apiSocket);
    ReachableApiServer.kubeconfig(kubeconfig, ApiRelay.url());
    ReachableApiServer.kubeconfig(controllerKubeconfig, api.url());
    await("API server reachable from the fabric")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                clients.httpStatus(
                        layout.external(), Layout.API_ADDRESS, Layout.API_PORT, "/api/v1/nodes")
                    == 200);
    components =
        componentsFactory.apply(
            new Components.Wiring(
                layout, workDir, kubeconfig, controllerKubeconfig, apiSocket, clients));
    objects = new ClusterObjects(kube);
    objects.registerNodes(layout.nodes());
    servers = ServerPods.start(layout);
    startController();
    mode = proxyMode;
    layout.nodes().forEach(this::startProxy);
    ServerPods.awaitListening(layout, clients);
    await("controller ready")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> components.controllerStatus("/readyz") == 200);
    layout.nodes().forEach(this::awaitProxyHealthy);
    System.out.printf(
        "netns e2e: cluster up in %d ms (work directory %s)%n",
        Duration.between(started, Instant.now()).toMillis(), workDir);
  }

  // --- processes -----------------------------------------------------------------------------

  private void startController() {
    controller = components.startController(workDir.resolve("controller.log"));
  }

  void startProxy(Layout.Node node) {
    proxies.put(node, components.startProxy(node, mode, proxyLog(node)));
  }

  /** SIGKILL, as a crashing or OOM-killed proxy; its rules stay in the kernel. */
  void killProxy(Layout.Node node) {
    JavaProcesses.kill(proxies.remove(node));
  }

  /**
   * What a firewall service's reload runs first on a node ({@code /etc/nftables.conf} begins with
   * it): every nftables table goes, the proxy's included.
   */
  void flushRuleset(Layout.Node node) {
    inNode(node, "nft", "flush", "ruleset").assertSucceeded();
  }

  /** Fails at once, with the proxy's log, when the proxy exits instead (say, an unknown mode). */
  void awaitProxyHealthy(Layout.Node node) {
    await("proxy on " + node.name() + " healthy")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              var proxy = proxies.get(node);
              if (proxy == null || !proxy.isAlive()) {
                throw new AssertionError(
                    "the proxy on " + node.name() + " exited:\n" + tail(proxyLog(node), 25));
              }
              return proxyHealthz(node) == 200;
            });
  }

  int proxyHealthz(Layout.Node node) {
    return clients.httpStatus(node.namespace(), "127.0.0.1", HEALTHZ_PORT, "/healthz");
  }

  String metrics(Layout.Node node) {
    return clients.httpBody(node.namespace(), "127.0.0.1", METRICS_PORT, "/metrics");
  }

  /** Runs the proxies in {@code wanted} mode, restarting them on clean kernels if it differs. */
  void useMode(ProxyMode wanted) {
    if (wanted == mode) {
      return;
    }
    layout.nodes().forEach(this::killProxy);
    mode = wanted;
    layout.nodes().forEach(this::startProxy);
    layout.nodes().forEach(this::awaitProxyHealthy);
    // The proxy removes the other mode's rules itself when it starts: nothing is flushed here.
    for (var node : layout.nodes()) {
      var nftTables = inNode(node, "nft", "list", "tables").stdout();
      var iptables =
          inNode(node, "iptables-save").stdout() + inNode(node, "ip6tables-save").stdout();
      if (wanted == ProxyMode.iptables && nftTables.contains(" proxima")) {
        throw new AssertionError(
            node.name() + " still has the nftables mode's tables:\n" + nftTables);
      }
      if (wanted == ProxyMode.nftables && iptables.contains("PROXIMA-")) {
        throw new AssertionError(
            node.name() + " still has the iptables mode's chains:\n" + iptables);
      }
    }
  }

  Components components() {
    return components;
  }

  Clients clients() {
    return clients;
  }

  ApiServer api() {
    return api;
  }

  /** What the proxy on {@code node} has logged so far. */
  String proxyLogText(Layout.Node node) {
    try {
      return Files.readString(proxyLog(node));
    } catch (IOException unreadable) {
      throw new UncheckedIOException(unreadable);
    }
  }

  private Path proxyLog(Layout.Node node) {
    return workDir.resolve(node.name() + "-proxy.log");
  }

  private HostTools.Result inNode(Layout.Node node, String... command) {
    return HostTools.inNamespace(scratch, node.namespace(), null, List.of(command));
  }

  // --- Services and endpoints ----------------------------------------------------------------

  /** A new Service of this scenario with its own ClusterIP; deleted after the scenario. */
  Workload workload(String name) {
    return objects.workload(name);
  }

  Workload workloadV6(String name) {
    return objects.workloadV6(name);
  }

  /** A NodePort Service; its healthCheckNodePort is set too, used with Local policy only. */
  Workload nodePortWorkload(String name) {
    return objects.nodePortWorkload(name);
  }

  /** Creates or replaces the Service, sets its slice, and waits until every node has it. */
  void apply(Workload workload, List<Workload.PodState> pods) {
    objects.writeService(workload);
    objects.writeSlice(workload, pods);
    awaitProgrammed(workload);
  }

  /** {@link #apply}, then waits until the controller has hinted every endpoint. */
  Workload applyHinted(Workload workload, List<Workload.PodState> pods) {
    apply(workload, pods);
    objects.awaitHints(workload);
    return workload;
  }

  /**
   * Waits until every node's ruleset has the Service: probing an IP no rule knows yet would only
   * wait for timeouts.
   */
  private void awaitProgrammed(Workload workload) {
    for (var node : layout.nodes()) {
      await("%s programmed on %s".formatted(workload.name, node.name()))
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> RulesetText.mentions(ruleset(node), workload.clusterIp));
    }
  }

  /** Writes the slice as the upstream slice writer would, with a fresh trigger time. */
  void setEndpoints(Workload workload, List<Workload.PodState> pods) {
    objects.writeSlice(workload, pods);
  }

  /** Sets the slice through the API server's side door while the components cannot reach it. */
  void setEndpointsWhileApiServerIsDown(Workload workload, List<Workload.PodState> pods) {
    api.changeWhileDown(client -> ClusterObjects.writeSlice(client, workload, pods));
  }

  EndpointSlice slice(Workload workload) {
    return objects.slice(workload);
  }

  /** The Service's condition of {@code type} as the controller last wrote it, or null. */
  Condition condition(Workload workload, String type) {
    return objects.condition(workload, type);
  }

  void awaitHints(Workload workload) {
    objects.awaitHints(workload);
  }

  /**
   * Deletes the scenario's Services and waits until no node's rules name them: the proxies share
   * the cluster across scenarios, so one that missed a deletion would fail the next scenario in its
   * place.
   */
  void deleteWorkloads() {
    var deleted = objects.deleteWorkloads();
    for (var node : layout.nodes()) {
      for (var workload : deleted) {
        await("%s removed from %s".formatted(workload.name, node.name()))
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !RulesetText.mentions(ruleset(node), workload.clusterIp));
      }
    }
  }

  // --- Nodes and zone demand ----------------------------------------------------------------

  /**
   * Reports {@code cpu} as the Node's allocatable CPU; {@link Layout.Node#cpu} is what the cluster
   * starts with and what a scenario that changes it must restore.
   */
  void setAllocatableCpu(Layout.Node node, int cpu) {
    objects.setAllocatableCpu(node, cpu);
  }

  /** Waits until the controller publishes {@code expected} (zone to share) as the zone demand. */
  void awaitZoneDemand(Map<String, String> expected) {
    await("zone demand " + expected + " published")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(objects::zoneDemand, expected::equals);
  }

  // --- traffic -------------------------------------------------------------------------------

  /**
   * {@code count} TCP connections from {@code client}'s pod to the Service's ClusterIP, quickly;
   * see {@link Clients#burst}.
   */
  Answers burst(Layout.Pod client, Workload workload, int count) {
    return clients.burst(
        client.name(), client.namespace(), workload.clusterIp, Workload.PORT, count);
  }

  /** {@code count} connections from {@code client}'s pod to the Service's ClusterIP. */
  Answers probe(Layout.Pod client, Workload workload, String protocol, int count) {
    return clients.probe(
        client.name(), client.namespace(), protocol, workload.clusterIp, Workload.PORT, count);
  }

  /** {@code count} connections from the external client to {@code node}'s NodePort. */
  Answers probeNodePort(Layout.Node node, Workload workload, String protocol, int count) {
    return clients.probe(
        "external", layout.external(), protocol, node.ipv4(), workload.nodePort, count);
  }

  /** The status a load balancer's health check of {@code node} gets for the Service. */
  int healthCheck(Layout.Node node, Workload workload) {
    return clients.httpStatus(layout.external(), node.ipv4(), workload.healthCheckNodePort, "/");
  }

  /** Connections from {@code client} to the Service until destroyed; see {@link Clients#loop}. */
  Process loop(Layout.Pod client, Workload workload, Path output) {
    return clients.loop(client.namespace(), "tcp", workload.clusterIp, Workload.PORT, output);
  }

  Path workDir() {
    return workDir;
  }

  Clients.Session session(Layout.Pod client, Workload workload, String protocol) {
    return clients.open(
        client.name(), client.namespace(), protocol, workload.clusterIp, Workload.PORT);
  }

  /** The named pods as ready endpoints. */
  List<Workload.PodState> ready(String... pods) {
    return Arrays.stream(pods).map(this::pod).map(Workload.PodState::ready).toList();
  }

  Layout.Pod pod(String name) {
    return layout.pod(name);
  }

  Layout.Node node(String name) {
    return layout.node(name);
  }

  Layout.Pod clientOn(String node) {
    return layout.client(layout.node(node));
  }

  // --- diagnostics ---------------------------------------------------------------------------

  /** The node's rules as its proxy's mode renders them: nft, or iptables-save of both families. */
  String ruleset(Layout.Node node) {
    if (mode == ProxyMode.iptables) {
      return inNode(node, "iptables-save").stdout() + inNode(node, "ip6tables-save").stdout();
    }
    return inNode(node, "nft", "list", "ruleset").stdout();
  }

  /**
   * The node's nftables tables by name. The listing follows creation order, which a restarted proxy
   * may change (it syncs IPv6 or IPv4 first), so compare tables, not listings.
   */
  Map<String, String> nftTables(Layout.Node node) {
    var tables = new TreeMap<String, String>();
    String name = null;
    var body = new StringBuilder();
    for (var line : inNode(node, "nft", "list", "ruleset").stdout().split("\n", -1)) {
      if (line.startsWith("table ")) {
        if (name != null) {
          tables.put(name, body.toString().strip());
        }
        name = line;
        body.setLength(0);
      }
      body.append(line).append('\n');
    }
    if (name != null) {
      tables.put(name, body.toString().strip());
    }
    return tables;
  }

  /** Every node's ruleset and proxy log tail, and the slices as the proxies saw them. */
  String diagnostics() {
    var text = new StringBuilder("\n==== netns e2e diagnostics (work directory " + workDir + ")\n");
    if (objects != null && api.running()) {
      text.append(objects.describeSlices());
    }
    for (var node : layout.nodes()) {
      text.append("==== ")
          .append(node.name())
          .append(" (")
          .append(node.zone())
          .append(") ruleset, ")
          .append(mode)
          .append(" mode\n");
      try {
        text.append(ruleset(node));
      } catch (AssertionError | RuntimeException e) {
        text.append("(unavailable: ").append(e.getMessage()).append(")\n");
      }
      text.append("==== ")
          .append(node.name())
          .append(" proxy log (last 25 lines)\n")
          .append(tail(proxyLog(node), 25));
    }
    text.append("==== controller log (last 25 lines)\n")
        .append(tail(workDir.resolve("controller.log"), 25));
    return text.toString();
  }

  private static String tail(Path file, int lines) {
    try {
      var all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
    } catch (IOException | RuntimeException e) {
      return "(no log)\n";
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    proxies.values().forEach(JavaProcesses::kill);
    proxies.clear();
    JavaProcesses.kill(controller);
    if (components != null) {
      components.close();
    }
    if (servers != null) {
      servers.close();
    }
    if (kube != null) {
      kube.close();
    }
    if (relay != null) {
      relay.close();
    }
    if (api != null) {
      api.close();
    }
    topology.tearDown();
    deleteScratch();
  }

  private void deleteScratch() {
    try (var files = Files.walk(scratch)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException | RuntimeException e) {
      System.err.println("netns e2e: could not delete " + scratch + ": " + e.getMessage());
    }
  }
}
