package dev.proxima.proxy.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.cli.BuildInfo;
import dev.proxima.cli.DaemonThreads;
import dev.proxima.cli.DurationConverter;
import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.KubeconfigOption;
import dev.proxima.cli.LogFormat;
import dev.proxima.cli.TerminationSignals;
import dev.proxima.proxy.config.GoDuration;
import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.informers.TrimOnDecode;
import dev.proxima.proxy.kernel.ConntrackTuner;
import dev.proxima.proxy.kernel.IptablesBackend;
import dev.proxima.proxy.kernel.LeftoverRules;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.kernel.SysctlFiles;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.nftables.NftText;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.runtime.ExplainServer;
import dev.proxima.proxy.runtime.Host;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.ProxyServer;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Run the service proxy on this node (every option also reads an environment variable).")
public final class RunCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      description = "This node's name (default: $NODE_NAME).")
  String nodeName;

  @Option(
      names = "--mode",
      defaultValue = "${env:PROXIMA_MODE:-nftables}",
      description =
          "The data plane: nftables or iptables (default: ${DEFAULT-VALUE}). Starting in one mode removes the other mode's Proxima rules.")
  ProxyMode mode;

  @Mixin KubeconfigOption kubernetes;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      defaultValue = "${env:PROXIMA_CONFIG}",
      description =
          "kube-proxy's configuration file (KubeProxyConfiguration v1alpha1, e.g. the config.conf key"
              + " of kubeadm's kube-system/kube-proxy ConfigMap). Proxima takes the settings it"
              + " implements from it and warns once per other field that is set; options and their"
              + " environment variables win over the file.")
  Path configFile;

  @Mixin RuleOptions rules;

  // kube-proxy's --conntrack-* flags, with its defaults; 0 leaves the host's value.
  @Option(
      names = "--conntrack-max-per-core",
      defaultValue = "${env:PROXIMA_CONNTRACK_MAX_PER_CORE:-32768}",
      description =
          "nf_conntrack_max per CPU (at most 1048576 in all, and at least --conntrack-min); only"
              + " ever raised. 0 leaves the limit and ignores --conntrack-min (default:"
              + " ${DEFAULT-VALUE}).")
  int conntrackMaxPerCore;

  @Option(
      names = "--conntrack-min",
      defaultValue = "${env:PROXIMA_CONNTRACK_MIN:-131072}",
      description =
          "The least nf_conntrack_max, whatever --conntrack-max-per-core gives (default:"
              + " ${DEFAULT-VALUE}).")
  int conntrackMin;

  @Option(
      names = "--conntrack-tcp-timeout-established",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_TIMEOUT_ESTABLISHED:-24h}",
      converter = GoDurationConverter.class,
      description =
          "Idle timeout of established TCP connections; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration conntrackTcpEstablishedTimeout;

  @Option(
      names = "--conntrack-tcp-timeout-close-wait",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_TIMEOUT_CLOSE_WAIT:-1h}",
      converter = GoDurationConverter.class,
      description =
          "Timeout of TCP connections in CLOSE_WAIT; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration conntrackTcpCloseWaitTimeout;

  @Option(
      names = "--conntrack-tcp-be-liberal",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_BE_LIBERAL:-false}",
      description =
          "Set nf_conntrack_tcp_be_liberal to 1: out-of-window TCP packets are not marked"
              + " INVALID (default: ${DEFAULT-VALUE}, which leaves it).")
  boolean conntrackTcpBeLiberal;

  @Option(
      names = "--conntrack-udp-timeout",
      defaultValue = "${env:PROXIMA_CONNTRACK_UDP_TIMEOUT:-0}",
      converter = GoDurationConverter.class,
      description = "Idle timeout of UNREPLIED UDP flows; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration conntrackUdpTimeout;

  @Option(
      names = "--conntrack-udp-timeout-stream",
      defaultValue = "${env:PROXIMA_CONNTRACK_UDP_TIMEOUT_STREAM:-0}",
      converter = GoDurationConverter.class,
      description = "Idle timeout of ASSURED UDP flows; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration conntrackUdpStreamTimeout;

  @Option(
      names = "--min-sync-period",
      defaultValue = "${env:PROXIMA_MIN_SYNC_PERIOD:-1s}",
      converter = DurationConverter.class,
      description =
          "Least time between syncs; changes within it are batched (default: ${DEFAULT-VALUE}).")
  Duration minSyncPeriod;

  @Option(
      names = "--sync-period",
      defaultValue = "${env:PROXIMA_SYNC_PERIOD:-30s}",
      converter = DurationConverter.class,
      description =
          "Retry interval after a failed sync, and how often the rules in the kernel are checked;"
              + " /healthz fails when a change waits 2x this (default: ${DEFAULT-VALUE}).")
  Duration syncPeriod;

  @Option(
      names = "--config-sync-period",
      defaultValue = "${env:PROXIMA_CONFIG_SYNC_PERIOD:-15m}",
      converter = DurationConverter.class,
      description = "Informer resync period (default: ${DEFAULT-VALUE}).")
  Duration configSyncPeriod;

  @Option(
      names = "--healthz-bind-address",
      defaultValue = "${env:PROXIMA_HEALTHZ_BIND_ADDRESS:-0.0.0.0:10256}",
      converter = BindAddressConverter.class,
      description = "Where /healthz and /livez are served (default: ${DEFAULT-VALUE}).")
  InetSocketAddress healthzAddress;

  @Option(
      names = "--metrics-bind-address",
      defaultValue = "${env:PROXIMA_METRICS_BIND_ADDRESS:-127.0.0.1:10249}",
      converter = BindAddressConverter.class,
      description = "Where /metrics is served (default: ${DEFAULT-VALUE}).")
  InetSocketAddress metricsAddress;

  @Option(
      names = "--explain-bind-address",
      defaultValue =
          "${env:PROXIMA_EXPLAIN_BIND_ADDRESS:-127.0.0.1:" + ExplainCommand.DEFAULT_PORT + "}",
      converter = BindAddressConverter.class,
      description =
          "Where `explain --live` reads the proxy's current plan and sync state; a loopback"
              + " address only, port 0 turns it off (default: ${DEFAULT-VALUE}).")
  InetSocketAddress explainAddress;

  @Mixin ServiceProxyNameOption serviceProxyName;

  @Option(
      names = "--dry-run",
      defaultValue = "${env:PROXIMA_DRY_RUN:-false}",
      description = "Render and print every ruleset instead of loading it.")
  boolean dryRun;

  /** Accepted so that an older DaemonSet still starts; nothing is saved on the host any more. */
  @Option(
      names = "--state-dir",
      hidden = true,
      defaultValue = "${env:PROXIMA_STATE_DIR}",
      description = "Ignored; will be removed.")
  String stateDir;

  @Option(
      names = "--log-format",
      defaultValue = "${env:PROXIMA_LOG_FORMAT:-text}",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  LogFormat logFormat;

  @Option(
      names = "--zone-demand-namespace",
      defaultValue = "${env:PROXIMA_ZONE_DEMAND_NAMESPACE:-proxima-system}",
      description =
          "Namespace of the controller's proxima-zone-demand ConfigMap, which zone spill-over"
              + " follows (default: ${DEFAULT-VALUE}).")
  String zoneDemandNamespace;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  ProxyConfig config() {
    return new ProxyConfig(
        nodeName == null ? "" : nodeName,
        rules.toSettings().withDefaultNodePortAddressesOf(mode),
        minSyncPeriod,
        syncPeriod,
        Duration.ofHours(1),
        serviceProxyName.value,
        zoneDemandNamespace);
  }

  private static IptablesBackend detectIptablesBackend() {
    var decision = LeftoverRules.detectBackend(List.of());
    log.atInfo()
        .addKeyValue("backend", decision.backend().label())
        .addKeyValue("reason", decision.reason())
        .log("Using the iptables backend the node uses");
    return decision.backend();
  }

  /**
   * Removes the other mode's leftover Proxima rules and, with {@code nft} (nftables mode), checks
   * that nft works. Most of this is waiting for the tools, so it runs on a thread of its own while
   * the API client is built and the informers list; the first sync waits for it. Problems are
   * logged, not fatal: the sync loop reports anything that stays broken.
   */
  private CompletableFuture<Void> prepareHostInBackground(Nft nft) {
    return CompletableFuture.runAsync(
            () -> {
              try {
                removeLeftovers();
              } catch (RuntimeException unexpected) {
                log.atWarn()
                    .setCause(unexpected)
                    .log("Could not remove the other mode's leftover rules");
              }
              // Whatever the removal did: an nft that does not work is this mode's own problem.
              if (nft != null) {
                probe(nft);
              }
            },
            task -> DaemonThreads.named("proxy-host-preparation").newThread(task).start())
        .exceptionally(
            unexpected -> {
              log.atWarn().setCause(unexpected).log("Could not check that nft works");
              return null;
            });
  }

  private void removeLeftovers() {
    var problems =
        mode == ProxyMode.iptables
            ? LeftoverRules.removeNftables(Nft.onThisHost())
            : LeftoverRules.removeIptables(List.of());
    problems.forEach(
        problem ->
            log.atWarn()
                .addKeyValue("error", problem)
                .log("Could not remove the other mode's leftover rules"));
  }

  private static void probe(Nft nft) {
    var probe = nft.check(new NftTransaction(new NftText(IpFamily.IPV4)).addTable());
    if (!probe.succeeded()) {
      // Exiting would only crash-loop the pod; staying up keeps health failing and metrics
      // counting, and the next sync succeeds as soon as nft works.
      log.atError()
          .addKeyValue("error", probe.summary())
          .log("nft is not usable; every sync fails and /healthz reports it until it is");
    }
  }

  static final String API_SERVER_PLACEHOLDER = "set-api-server-host.invalid";

  /**
   * Why the proxy must not start with this API server URL, or null when it may: the manifests'
   * placeholder means the install skipped its one required setting, and retrying a name that cannot
   * resolve would only turn the pods unready a minute later, with the cause buried in retries.
   */
  static String placeholderError(String masterUrl) {
    if (masterUrl == null || !masterUrl.contains(API_SERVER_PLACEHOLDER)) {
      return null;
    }
    return "the API server address is still the manifests' placeholder "
        + API_SERVER_PLACEHOLDER
        + " (KUBERNETES_SERVICE_HOST). Set api-server-host (and api-server-port) in the"
        + " proxima-proxy ConfigMap, in your overlay's configMapGenerator (see"
        + " deploy/overlays/replace-kube-proxy/kustomization.yaml and docs/install.md), to the"
        + " address every node reaches the API server at, and apply again";
  }

  /** For {@code /flagz}. */
  static java.util.Map<String, String> flagValues(CommandLine.Model.CommandSpec spec) {
    var values = new java.util.TreeMap<String, String>();
    for (var option : spec.options()) {
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      Object value = option.getValue();
      var text =
          value instanceof java.util.Collection<?> many
              ? "[" + String.join(",", many.stream().map(String::valueOf).toList()) + "]"
              : String.valueOf(value);
      values.put(option.longestName().replaceFirst("^-+", ""), text);
    }
    return values;
  }

  @Override
  public Integer call() throws Exception {
    ProxyConfig config;
    io.fabric8.kubernetes.client.Config clientConfig;
    ConntrackSettings conntrackSettings;
    var explain = explainAddress.getPort() == 0 ? null : explainAddress;
    try {
      var ignoredInConfig =
          configFile == null ? List.<String>of() : ConfigFileSettings.apply(configFile, this, spec);
      logFormat.apply();
      ignoredInConfig.forEach(
          ignored -> log.atWarn().addKeyValue("config", configFile.toString()).log(ignored));
      if (stateDir != null) {
        log.atWarn()
            .addKeyValue("stateDir", stateDir)
            .log(
                "--state-dir is ignored and will be removed: the proxy keeps no files on the host;"
                    + " drop the flag (and any /var/lib/proxima volume)");
      }
      if (explain != null) {
        ExplainServer.requireLoopback(explain);
      }
      config = config();
      clientConfig = kubernetes.clientConfig();
      var placeholder = placeholderError(clientConfig.getMasterUrl());
      if (placeholder != null) {
        throw new IllegalArgumentException(placeholder);
      }
      conntrackSettings =
          new ConntrackSettings(
              conntrackMaxPerCore,
              conntrackMin,
              conntrackTcpEstablishedTimeout,
              conntrackTcpCloseWaitTimeout,
              conntrackTcpBeLiberal,
              conntrackUdpTimeout,
              conntrackUdpStreamTimeout);
    } catch (IllegalArgumentException | KubeconfigException invalid) {
      spec.commandLine().getErr().println("error: " + invalid.getMessage());
      return 2;
    }
    List<String> untunedSysctls = List.of();
    if (!dryRun) {
      // As kube-proxy, once at start; the kernel keeps the values after the proxy stops.
      untunedSysctls =
          ConntrackTuner.apply(
              conntrackSettings,
              Runtime.getRuntime().availableProcessors(),
              SysctlFiles.netfilter());
    }
    var nft = dryRun || mode != ProxyMode.nftables ? null : Nft.onThisHost();
    IptablesBackend backend =
        !dryRun && mode == ProxyMode.iptables ? detectIptablesBackend() : null;
    // A dry run has no host to touch.
    CompletionStage<Void> hostPrepared =
        dryRun ? CompletableFuture.completedFuture(null) : prepareHostInBackground(nft);
    var stop = TerminationSignals.latch();
    var registry = new PrometheusRegistry();
    var out = spec.commandLine().getOut();
    // A dry run differs from a node only here: its loader prints and it has no host to touch.
    var planes =
        dryRun
            ? DataPlanes.of(
                mode,
                config.rules(),
                new PrintingRuleLoader(
                    script -> {
                      out.print(script);
                      out.flush();
                    }))
            : DataPlanes.onThisHost(mode, config.rules(), backend, nft);
    var host = dryRun ? Host.none() : Host.thisHost();
    try (var client =
            new KubernetesClientBuilder()
                .withConfig(clientConfig)
                .withKubernetesSerialization(TrimOnDecode.serialization())
                .build();
        var server =
            new ProxyServer(
                client,
                config,
                mode,
                planes,
                host,
                registry,
                configSyncPeriod,
                Clock.systemUTC())) {
      server.componentFlags(flagValues(spec));
      server.untunedSysctls(untunedSysctls);
      server.start(healthzAddress, metricsAddress, explain, hostPrepared);
      if (backend != null) {
        server.iptablesBackend(backend.label());
      }
      log.atInfo()
          .addKeyValue("version", BuildInfo.current().version())
          .addKeyValue("revision", BuildInfo.current().shortRevision())
          .addKeyValue("node", config.nodeName())
          .addKeyValue("mode", mode)
          .addKeyValue("iptablesBackend", backend == null ? "-" : backend.label())
          .addKeyValue("dryRun", dryRun)
          .addKeyValue("healthz", healthzAddress)
          .addKeyValue("metrics", metricsAddress)
          .addKeyValue("explain", explain == null ? "off" : explain)
          .log("Starting proxima-proxy");
      stop.await();
      log.atInfo().log("Shutting down; programmed rules stay in place");
    }
    return 0;
  }

  /** Go's duration spelling, as kube-proxy's flags take it. */
  static final class GoDurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return GoDuration.parse(value.trim());
      } catch (IllegalArgumentException invalid) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration (e.g. 24h, 1h30m, 90s, 0)");
      }
    }
  }
}
