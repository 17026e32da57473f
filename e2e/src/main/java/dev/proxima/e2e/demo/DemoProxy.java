package dev.proxima.e2e.demo;

import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.runtime.Host;
import dev.proxima.proxy.runtime.ProxyConfig;
import dev.proxima.proxy.runtime.ProxyServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One node's real proxy in dry-run, with its own API client, collecting the nft transactions it
 * would load. Once {@link #reportChanges} is called (the {@code --serve} mode), every later
 * transaction is appended to the node's .nft file, and whenever the node's explain report changes
 * it is rewritten to the node's .txt file and the lines that changed are printed. The report is
 * checked every {@link #REPORT_PERIOD}, not only when rules load: a change of hints that leaves the
 * node's endpoints as they were changes the report's reasons but loads nothing.
 */
final class DemoProxy implements AutoCloseable {
  private static final int MAX_PRINTED_LINES = 30;
  private static final Duration REPORT_PERIOD = Duration.ofMillis(250);

  private final String node;
  private final KubernetesClient client;
  private final ProxyServer server;
  private final Path directory;
  private final List<String> transactions = new CopyOnWriteArrayList<>();
  // Files are written and changes printed off the proxy's sync thread, one at a time.
  private final ScheduledExecutorService writer;
  private volatile PrintWriter changes;
  private String lastReport = "";

  private DemoProxy(String node, KubernetesClient client, Path directory) {
    this.node = node;
    this.client = client;
    this.directory = directory;
    this.writer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              var thread = new Thread(task, "demo-report-" + node);
              thread.setDaemon(true);
              return thread;
            });
    var config =
        new ProxyConfig(
            node,
            new RuleSettings(List.of("10.244.0.0/16"), false, 14, List.of()),
            Duration.ofMillis(100),
            Duration.ofSeconds(30),
            Duration.ofHours(1),
            null,
            ProxyConfig.DEFAULT_ZONE_DEMAND_NAMESPACE);
    this.server =
        new ProxyServer(
            client,
            config,
            ProxyMode.nftables,
            DataPlanes.nftables(config.rules(), new PrintingRuleLoader(this::loaded)),
            Host.none(),
            new PrometheusRegistry(),
            Duration.ZERO,
            Clock.systemUTC());
  }

  static DemoProxy start(EmbeddedApiServer apiServer, String node, Path directory)
      throws IOException {
    var proxy = new DemoProxy(node, apiServer.client(), directory);
    proxy.server.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        CompletableFuture.completedFuture(null));
    proxy.client.resource(proxy.pod()).create();
    return proxy;
  }

  /**
   * This proxy as the DaemonSet's pod on its node, as {@code proxima-proxy status} finds it: its
   * pod IP is loopback and its ports are the ones this in-process proxy listens on, which the demo
   * API server's pod proxy reaches.
   */
  private Pod pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("proxima-proxy-" + node)
        .withNamespace("proxima-system")
        .addToLabels("app.kubernetes.io/name", "proxima-proxy")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withHostNetwork(true)
        .addNewContainer()
        .withName("proxy")
        .withImage("proxima-proxy (in the demo's JVM, dry-run)")
        .addNewPort()
        .withName("healthz")
        .withContainerPort(server.healthPort())
        .endPort()
        .addNewPort()
        .withName("metrics")
        .withContainerPort(server.metricsPort())
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP("127.0.0.1")
        .endStatus()
        .build();
  }

  String node() {
    return node;
  }

  boolean awaitSynced(Duration timeout) {
    var deadline = Instant.now().plus(timeout);
    while (server.plans().isEmpty() || transactions.isEmpty()) {
      if (Instant.now().isAfter(deadline)) {
        return false;
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    return true;
  }

  /** Which endpoints this node uses for each Service, and why. */
  String explain() {
    return ExplainReport.text(server.plans());
  }

  /** Writes every transaction so far to {@code <node>.nft}; returns the file. */
  Path writeRuleset() throws IOException {
    var file = rulesetFile();
    Files.writeString(file, String.join("", transactions));
    return file;
  }

  /** From now on, reports each routing change to {@code out} and the node's files. */
  void reportChanges(PrintWriter out) {
    writer.execute(
        () -> {
          lastReport = explain();
          writeReport(lastReport);
          changes = out;
        });
    long period = REPORT_PERIOD.toMillis();
    writer.scheduleWithFixedDelay(this::checkReport, period, period, TimeUnit.MILLISECONDS);
  }

  private Path rulesetFile() {
    return directory.resolve(node + ".nft");
  }

  private Path reportFile() {
    return directory.resolve(node + ".txt");
  }

  private void loaded(String transaction) {
    transactions.add(transaction);
    if (changes != null) {
      writer.execute(() -> appendRules(transaction));
    }
  }

  private void appendRules(String transaction) {
    try {
      Files.writeString(
          rulesetFile(), transaction, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    print(
        List.of(
            "loaded %d more lines of nft rules (appended to %s)"
                .formatted(transaction.lines().count(), rulesetFile())));
  }

  private void checkReport() {
    var report = explain();
    if (report.equals(lastReport)) {
      return;
    }
    writeReport(report);
    var before = new LinkedHashSet<>(lastReport.lines().toList());
    var added = report.lines().filter(line -> !before.contains(line)).toList();
    lastReport = report;
    var lines = new java.util.ArrayList<String>();
    lines.add("routing changed (whole report in %s):".formatted(reportFile()));
    added.stream().limit(MAX_PRINTED_LINES).forEach(lines::add);
    if (added.size() > MAX_PRINTED_LINES) {
      lines.add("... (%d more lines)".formatted(added.size() - MAX_PRINTED_LINES));
    }
    print(lines);
  }

  private void print(List<String> lines) {
    var out = changes;
    synchronized (out) {
      out.println();
      lines.forEach(line -> out.printf("[%s] %s%n", node, line));
      out.flush();
    }
  }

  private void writeReport(String report) {
    try {
      Files.writeString(reportFile(), report);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    writer.shutdownNow();
    server.close();
    client.close();
  }
}
