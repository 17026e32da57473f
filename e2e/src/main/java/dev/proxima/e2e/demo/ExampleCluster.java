package dev.proxima.e2e.demo;

import dev.proxima.controller.hints.HintMode;
import dev.proxima.controller.hints.HintPlanner;
import dev.proxima.controller.hints.auto.AutoHintCache;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.SliceOwnership;
import dev.proxima.controller.runtime.ControllerConfig;
import dev.proxima.controller.runtime.HintController;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.state.ClusterState;
import dev.proxima.model.state.StateFile;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The example cluster of the embedded default: seeding it into an API server, running the real
 * controller until its hints converge, and reporting every endpoint's hints.
 */
public final class ExampleCluster {
  private static final String CLUSTER = "/demo/cluster.yaml";

  private ExampleCluster() {}

  /** The bundled example cluster: 3 zones, 6 nodes, one Service per hint case. */
  public static ClusterState load()
      throws java.io.IOException, dev.proxima.model.state.StateFileException {
    try (var stream = ExampleCluster.class.getResourceAsStream(CLUSTER)) {
      return StateFile.load(stream, CLUSTER);
    }
  }

  /**
   * Runs the real controller, with leader election, until the planner finds nothing left to write.
   *
   * @return false when the hints did not converge in time
   */
  public static boolean runController(KubernetesClient client, Duration timeout) throws Exception {
    try (var controller = startController(client)) {
      return awaitConverged(client, timeout);
    }
  }

  /** Starts the real controller, with leader election; it runs until closed. */
  public static HintController startController(KubernetesClient client) throws Exception {
    var config =
        ControllerConfig.defaults()
            .withLeaderElection(
                new ControllerConfig.LeaderElectionConfig(
                    true,
                    "proxima-system",
                    "proxima-controller",
                    "demo-replica",
                    Duration.ofSeconds(15),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(2)));
    var controller =
        new HintController(
            client,
            config,
            new ControllerMetrics(new PrometheusRegistry()),
            Clock.systemUTC(),
            () -> {});
    controller.start(Duration.ofSeconds(30));
    return controller;
  }

  public static void seed(KubernetesClient client, ClusterState cluster) {
    cluster.nodes().forEach(node -> client.resource(node).create());
    cluster.services().forEach(service -> client.resource(service).create());
    cluster.endpointSlices().forEach(slice -> client.resource(slice).create());
  }

  /**
   * Waits until the planner finds nothing left to write for any Service.
   *
   * @return false when that did not happen within {@code timeout}
   */
  public static boolean awaitConverged(KubernetesClient client, Duration timeout) {
    var deadline = Instant.now().plus(timeout);
    var planner = plannerFor(client);
    while (Instant.now().isBefore(deadline)) {
      var slices = client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems();
      boolean converged =
          client.services().inAnyNamespace().list().getItems().stream()
              .allMatch(
                  service -> planner.plan(service, slicesOf(service, slices)).updates().isEmpty());
      if (converged) {
        return true;
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
    return false;
  }

  private static List<EndpointSlice> slicesOf(Service service, List<EndpointSlice> slices) {
    var key = new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName());
    return slices.stream()
        .filter(slice -> SliceOwnership.serviceOf(slice).filter(key::equals).isPresent())
        .toList();
  }

  /**
   * A planner that sees the cluster's Nodes, so Auto Services are judged as the controller does.
   */
  private static HintPlanner plannerFor(KubernetesClient client) {
    var autoHints = new AutoHintCache();
    autoHints.setNodes(client.nodes().list().getItems());
    return new HintPlanner(autoHints);
  }

  public static void report(KubernetesClient client, PrintWriter out) {
    var planner = plannerFor(client);
    var slices = client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems();
    for (var service : client.services().inAnyNamespace().list().getItems()) {
      var plan = planner.plan(service, slicesOf(service, slices));
      var value = service.getSpec().getTrafficDistribution();
      out.printf(
          "%nService %s/%s  trafficDistribution=%s  (%s)%n",
          service.getMetadata().getNamespace(),
          service.getMetadata().getName(),
          value == null ? "<none>" : value,
          describe(plan.mode(), value));
      out.printf("  %-14s %-9s %-7s %-6s %s%n", "ENDPOINT", "NODE", "ZONE", "READY", "HINTS");
      for (var slice : slicesOf(service, slices)) {
        for (var endpoint : slice.getEndpoints()) {
          out.printf(
              "  %-14s %-9s %-7s %-6s %s%n",
              String.join(",", endpoint.getAddresses()),
              endpoint.getNodeName(),
              endpoint.getZone(),
              endpoint.getConditions().getReady(),
              hints(endpoint));
        }
      }
    }
    var events = client.v1().events().inAnyNamespace().list().getItems();
    out.printf("%nEvents recorded: %d%n", events.size());
    events.forEach(
        event ->
            out.printf(
                "  %s %s/%s %s: %s%n",
                event.getType(),
                event.getInvolvedObject().getNamespace(),
                event.getInvolvedObject().getName(),
                event.getReason(),
                event.getMessage()));
    out.flush();
  }

  private static String describe(HintMode mode, String value) {
    return switch (mode) {
      case TRAFFIC_DISTRIBUTION -> "hints written";
      case AUTO -> "topology-mode Auto: CPU-proportional zone hints";
      case NONE -> value == null ? "no value: hints removed" : "unsupported value: hints removed";
    };
  }

  static String hints(Endpoint endpoint) {
    var hints = endpoint.getHints();
    if (hints == null) {
      return "-";
    }
    var zones =
        hints.getForZones() == null
            ? List.<String>of()
            : hints.getForZones().stream().map(z -> z.getName()).toList();
    var nodes =
        hints.getForNodes() == null
            ? List.<String>of()
            : hints.getForNodes().stream().map(n -> n.getName()).toList();
    return "forZones=" + zones + (nodes.isEmpty() ? "" : " forNodes=" + nodes);
  }
}
