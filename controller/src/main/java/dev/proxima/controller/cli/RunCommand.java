package dev.proxima.controller.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.cli.BuildInfo;
import dev.proxima.cli.DurationConverter;
import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.KubeconfigOption;
import dev.proxima.cli.LogFormat;
import dev.proxima.cli.TerminationSignals;
import dev.proxima.controller.health.ProbeServer;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.controller.reconcile.OverwriteGuard;
import dev.proxima.controller.runtime.ControllerConfig;
import dev.proxima.controller.runtime.HintController;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the controller against a cluster until SIGTERM. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Run the hint controller against a cluster (every option also reads PROXIMA_* env).")
public final class RunCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

  @Mixin KubeconfigOption kubernetes;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--leader-elect",
      negatable = true,
      defaultValue = "${env:PROXIMA_LEADER_ELECT:-true}",
      fallbackValue = "true",
      description =
          "Campaign for a Lease and write only while holding it (default: ${DEFAULT-VALUE}).")
  boolean leaderElect;

  @Option(
      names = "--leader-election-namespace",
      defaultValue = "${env:PROXIMA_LEADER_ELECTION_NAMESPACE:-proxima-system}",
      description =
          "Namespace of the Lease and of the zone-demand ConfigMap (default: ${DEFAULT-VALUE}).")
  String leaseNamespace;

  @Option(
      names = "--leader-election-lease-name",
      defaultValue = "${env:PROXIMA_LEADER_ELECTION_LEASE_NAME:-proxima-controller}",
      description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
  String leaseName;

  @Option(
      names = "--leader-election-identity",
      defaultValue = "${env:PROXIMA_LEADER_ELECTION_IDENTITY:-${env:HOSTNAME}}",
      description = "This replica's identity in the Lease (default: the pod's hostname).")
  String identity;

  @Option(
      names = "--metrics-bind-address",
      defaultValue = "${env:PROXIMA_METRICS_BIND_ADDRESS:-0.0.0.0:8080}",
      converter = BindAddressConverter.class,
      description = "Where /metrics is served (default: ${DEFAULT-VALUE}).")
  InetSocketAddress metricsAddress;

  @Option(
      names = "--health-probe-bind-address",
      defaultValue = "${env:PROXIMA_HEALTH_PROBE_BIND_ADDRESS:-0.0.0.0:8081}",
      converter = BindAddressConverter.class,
      description = "Where /healthz and /readyz are served (default: ${DEFAULT-VALUE}).")
  InetSocketAddress probeAddress;

  @Option(
      names = "--workers",
      defaultValue = "${env:PROXIMA_WORKERS:-5}",
      description = "Services reconciled in parallel (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--resync-period",
      defaultValue = "${env:PROXIMA_RESYNC_PERIOD:-30m}",
      converter = DurationConverter.class,
      description =
          "How often every Service is re-checked without a change (default: ${DEFAULT-VALUE}).")
  Duration resyncPeriod;

  @Option(
      names = "--informer-sync-timeout",
      defaultValue = "${env:PROXIMA_INFORMER_SYNC_TIMEOUT:-2m}",
      converter = DurationConverter.class,
      description =
          "Give up starting when the caches are not filled by then (default: ${DEFAULT-VALUE}).")
  Duration syncTimeout;

  @Option(
      names = "--slices",
      defaultValue = "${env:PROXIMA_SLICES:-auto}",
      description =
          "Which EndpointSlices get hints: all, unmanaged (only those kube-controller-manager does"
              + " not manage) or auto (also KCM's, for values this cluster's KCM does not"
              + " implement; decided from the API server's version) (default: ${DEFAULT-VALUE}).")
  String slices;

  @Option(
      names = "--log-format",
      defaultValue = "${env:PROXIMA_LOG_FORMAT:-text}",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  LogFormat logFormat;

  @Override
  public Integer call() throws Exception {
    logFormat.apply();
    if (workers < 1) {
      log.atError().addKeyValue("workers", workers).log("--workers must be at least 1");
      return 2;
    }
    io.fabric8.kubernetes.client.Config clientConfig;
    try {
      clientConfig = kubernetes.clientConfig();
    } catch (KubeconfigException unusable) {
      spec.commandLine().getErr().println("error: " + unusable.getMessage());
      return 2;
    }
    SliceScope.Slices scope;
    try {
      scope = SliceScope.Slices.valueOf(slices.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException unknown) {
      spec.commandLine()
          .getErr()
          .println("error: --slices must be all, unmanaged or auto, not " + slices);
      return 2;
    }
    var config = controllerConfig().withSlices(scope);
    var registry = new PrometheusRegistry();
    var metrics = new ControllerMetrics(registry);
    var stop = TerminationSignals.requested();
    var exitCode = new AtomicInteger(0);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
        var controller =
            new HintController(
                client,
                config,
                metrics,
                Clock.systemUTC(),
                () -> {
                  exitCode.set(1);
                  stop.complete(null);
                });
        var probes =
            ProbeServer.start(
                metricsAddress,
                probeAddress,
                registry,
                metrics.streamedFamilies(),
                () -> true,
                controller::isReady)) {
      log.atInfo()
          .addKeyValue("version", BuildInfo.current().version())
          .addKeyValue("revision", BuildInfo.current().shortRevision())
          .addKeyValue("metrics", metricsAddress)
          .addKeyValue("probes", probeAddress)
          .addKeyValue("leaderElection", leaderElect)
          .addKeyValue("workers", workers)
          .log("Starting proxima-controller");
      try {
        if (!controller.start(syncTimeout, stop)) {
          log.atInfo().log("Stopped before the informers synced; nothing was written");
          return 0;
        }
      } catch (TimeoutException timeout) {
        log.atError()
            .addKeyValue("timeout", syncTimeout)
            .log(
                "Informers did not sync; check API server reachability and RBAC (list/watch Services, EndpointSlices, Nodes)");
        return 1;
      }
      stop.join();
      log.atInfo().addKeyValue("exitCode", exitCode.get()).log("Shutting down");
    }
    return exitCode.get();
  }

  ControllerConfig controllerConfig() {
    var id = identity == null || identity.isBlank() ? "proxima-" + UUID.randomUUID() : identity;
    var election =
        leaderElect
            ? new ControllerConfig.LeaderElectionConfig(
                true,
                leaseNamespace,
                leaseName,
                id,
                Duration.ofSeconds(15),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2))
            : ControllerConfig.LeaderElectionConfig.disabledIn(leaseNamespace);
    return new ControllerConfig(workers, resyncPeriod, 15, election, OverwriteGuard.Policy.DEFAULT);
  }
}
