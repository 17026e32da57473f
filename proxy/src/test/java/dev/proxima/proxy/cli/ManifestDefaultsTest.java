package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.proxima.proxy.dataplane.DataPlanes;
import dev.proxima.proxy.kernel.PrintingRuleLoader;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.runtime.Host;
import dev.proxima.proxy.runtime.ProxyServer;
import dev.proxima.proxy.testing.ClusterObjects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The proxy as deploy/base runs it (the DaemonSet's args, and each ConfigMap value its environment
 * passes to an option), against Nodes with and without spec.podCIDRs: rules are programmed either
 * way and /livez answers 200.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ManifestDefaultsTest {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)");

  KubernetesClient client;

  private final List<String> scripts = new CopyOnWriteArrayList<>();
  private ProxyServer proxy;

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void theManifestsDefaultIsNodeCidr() throws Exception {
    assertThat(manifestArgs()).contains("--detect-local-mode=NodeCIDR");
  }

  @Test
  void aNodeWithoutPodCidrsGetsItsRulesAndStaysLive() throws Exception {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    startWithManifestFlags();

    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.96.0.20 . tcp . 80"));
    var live = get("/livez");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(live.body())
        .contains("\"warnings\": {\"IPv4\": \"None (no local-traffic detection)");
    var ready = get("/healthz");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).contains("NodeCIDR is configured but the Node has no spec.podCIDRs");
    assertThat(metrics()).contains("proxima_proxy_local_detection_degraded{ip_family=\"IPv4\"} 1");
  }

  @Test
  void theMetricsPortServesStatuszAndFlagzWithTheManifestsFlags() throws Exception {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    startWithManifestFlags();

    var statusz = metricsPath("/statusz");
    var flagz = metricsPath("/flagz");

    assertThat(statusz).startsWith("proxima-proxy statusz\nWarning: ").contains("\nUp: 0 hr ");
    assertThat(flagz)
        .startsWith("proxima-proxy flags\n")
        .contains("\ndetect-local-mode=NodeCIDR\n", "\nlog-format=json\n", "\nnode-name=node-a\n");
  }

  @Test
  void aNodeWithPodCidrsUsesThem() throws Exception {
    client
        .resource(
            new NodeBuilder(ClusterObjects.node("node-a", "zone-a"))
                .editOrNewSpec()
                .withPodCIDRs("10.244.1.0/24")
                .endSpec()
                .build())
        .create();
    startWithManifestFlags();

    await().untilAsserted(() -> assertThat(lastIpv4Script()).contains("10.96.0.20 . tcp . 80"));
    assertThat(lastIpv4Script()).contains("10.244.1.0/24");
    var live = get("/livez");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(live.body()).doesNotContain("warnings");
    assertThat(metrics()).contains("proxima_proxy_local_detection_degraded{ip_family=\"IPv4\"} 0");
  }

  private void startWithManifestFlags() throws Exception {
    client.resource(ClusterObjects.service("shop", "web", "10.96.0.20")).create();
    client.resource(ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5")).create();
    var args = new ArrayList<>(manifestArgs());
    args.add("--node-name=node-a");
    args.add("--min-sync-period=100ms");
    var line = ProxyMain.commandLine();
    var parsed = line.parseArgs(args.toArray(String[]::new));
    var run = (RunCommand) parsed.subcommand().commandSpec().userObject();
    proxy =
        new ProxyServer(
            client,
            run.config(),
            ProxyMode.nftables,
            DataPlanes.nftables(run.config().rules(), new PrintingRuleLoader(scripts::add)),
            Host.none(),
            new PrometheusRegistry(),
            Duration.ZERO,
            Clock.systemUTC());
    proxy.componentFlags(RunCommand.flagValues(parsed.subcommand().commandSpec()));
    proxy.start(
        new InetSocketAddress("127.0.0.1", 0),
        new InetSocketAddress("127.0.0.1", 0),
        null,
        CompletableFuture.completedFuture(null));
  }

  /**
   * The proxy container's args, then one option per environment variable the DaemonSet fills from
   * the base's ConfigMap (an option's default reads {@code ${env:NAME}}); bind addresses are left
   * to the test.
   */
  @SuppressWarnings("unchecked")
  static List<String> manifestArgs() throws Exception {
    var base = repositoryRoot().resolve("deploy/base");
    var daemonSet =
        Serialization.unmarshal(
            Files.readString(base.resolve("proxy-daemonset.yaml")), DaemonSet.class);
    var container = daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0);
    var kustomization =
        (Map<String, Object>)
            Serialization.unmarshal(
                Files.readString(base.resolve("kustomization.yaml")), Map.class);
    var literals = new LinkedHashMap<String, String>();
    for (var generator : (List<Map<String, Object>>) kustomization.get("configMapGenerator")) {
      for (var literal : (List<String>) generator.get("literals")) {
        int eq = literal.indexOf('=');
        literals.put(literal.substring(0, eq), literal.substring(eq + 1));
      }
    }
    var args = new ArrayList<String>();
    for (var arg : container.getArgs()) {
      if (!arg.startsWith("--metrics-bind-address") && !arg.startsWith("--healthz-bind-address")) {
        args.add(arg);
      }
    }
    var run = ProxyMain.commandLine().setInterpolateVariables(false).getSubcommands().get("run");
    for (var env : container.getEnv()) {
      if (env.getValueFrom() == null || env.getValueFrom().getConfigMapKeyRef() == null) {
        continue;
      }
      var value = literals.get(env.getValueFrom().getConfigMapKeyRef().getKey());
      for (CommandLine.Model.OptionSpec option : run.getCommandSpec().options()) {
        var reads = option.defaultValue() == null ? null : ENV.matcher(option.defaultValue());
        if (reads != null && reads.find() && reads.group(1).equals(env.getName())) {
          if (!value.isEmpty()) {
            args.add(option.longestName() + "=" + value);
          }
        }
      }
    }
    return args;
  }

  private static Path repositoryRoot() {
    var dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("deploy/base"))) {
      dir = dir.getParent();
    }
    return dir;
  }

  private String lastIpv4Script() {
    for (int i = scripts.size() - 1; i >= 0; i--) {
      if (scripts.get(i).startsWith("add table ip proxima")) {
        return scripts.get(i);
      }
    }
    return "";
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.healthPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private String metrics() throws Exception {
    return metricsPath("/metrics");
  }

  private String metricsPath(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.metricsPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
