package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.e2e.deploy.AlertRules.Alert;
import dev.proxima.testing.ReachableApiServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's {@code prometheus} package), loaded with the rendered alert rules,
 * scraping the packaged proxy (in dry-run) and controller, which run against a mock API server
 * holding a small healthy cluster. Every Grafana panel query and every alert expression must parse
 * and evaluate through Prometheus's HTTP API; every panel query must return series (the failure
 * counters start at 0, and the dry run's kernel counts web's connections at 0); and in this healthy
 * cluster, once it has settled, no alert expression may return anything.
 */
class DashboardAndAlertsPrometheusIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Path DASHBOARD = Path.of("deploy/monitoring/grafana-dashboard.json");

  private static final Duration SETTLE = Duration.ofSeconds(120);

  @TempDir Path work;

  private ReachableApiServer api;
  private final List<Process> processes = new ArrayList<>();
  private int prometheusPort;

  @AfterEach
  void stop() throws InterruptedException {
    for (var process : processes) {
      process.destroy();
    }
    for (var process : processes) {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (api != null) {
      api.close();
    }
  }

  @Test
  void everyPanelQueryAndAlertEvaluatesThePanelsShowDataAndTheHealthyClusterRaisesNoAlert()
      throws Exception {
    var kubectl = Kustomize.kubectl();
    assumeTrue(
        kubectl.isPresent(),
        "kubectl is not on PATH, so the alert rules cannot be rendered and Prometheus is NOT run"
            + " against the components; install kubectl");
    var prometheus = AlertRules.prometheusTool("prometheus", "the dashboard and alerts are");
    var repository = Kustomize.repositoryRoot();
    var proxyJar = jar("proxima.proxy.jar", "../proxy/target/proxima-proxy.jar");
    var controllerJar =
        jar("proxima.controller.jar", "../controller/target/proxima-controller.jar");
    var ruleFile =
        AlertRules.ruleFile(Kustomize.render(kubectl.get(), repository, AlertRules.OVERLAY));
    var alerts = AlertRules.alerts(ruleFile);
    AlertRules.write(ruleFile, work);

    // The cluster: node-a (this proxy's) has no endpoint of web's zone-preferring Service, and
    // none of the NodePort Service with externalTrafficPolicy: Local. web's connections are
    // counted per locality, for the per-Service panel.
    api = new ReachableApiServer();
    var kubeconfig = ReachableApiServer.kubeconfig(work.resolve("kubeconfig"), api.url());
    var kube = api.client();
    kube.nodes().resource(node("node-b", "zone-b", "10.0.0.2", "10.244.1.0/24")).create();
    kube.nodes().resource(node("node-c", "zone-c", "10.0.0.3", "10.244.2.0/24")).create();
    var web = service("web", "10.96.0.10", "ClusterIP", "PreferSameZone");
    web.getMetadata().setAnnotations(Map.of("proxima.dev/observe-locality", "true"));
    kube.services().resource(web).create();
    kube.discovery()
        .v1()
        .endpointSlices()
        .resource(slice("web", "10.244.1.10", "node-b", "zone-b"))
        .create();
    var ingress = service("ingress", "10.96.0.11", "NodePort", null);
    ingress.getSpec().setExternalTrafficPolicy("Local");
    kube.services().resource(ingress).create();
    kube.discovery()
        .v1()
        .endpointSlices()
        .resource(slice("ingress", "10.244.2.10", "node-c", "zone-c"))
        .create();
    kube.services().resource(service("old", "10.96.0.12", "ClusterIP", "PreferSameZone")).create();
    kube.discovery()
        .v1()
        .endpointSlices()
        .resource(slice("old", "10.244.1.11", "node-b", "zone-b"))
        .create();

    int proxyMetrics = freePort();
    int proxyHealthz = freePort();
    int controllerMetrics = freePort();
    processes.add(
        java(
            proxyJar,
            List.of(
                "run",
                "--dry-run",
                "--node-name=node-a",
                "--kubeconfig=" + kubeconfig,
                "--min-sync-period=100ms",
                "--sync-period=5s",
                "--state-dir=",
                "--cluster-cidr=10.244.0.0/16",
                "--explain-bind-address=127.0.0.1:0",
                "--healthz-bind-address=127.0.0.1:" + proxyHealthz,
                "--metrics-bind-address=127.0.0.1:" + proxyMetrics),
            work.resolve("proxy.log")));
    processes.add(
        java(
            controllerJar,
            List.of(
                "run",
                "--kubeconfig=" + kubeconfig,
                "--no-leader-elect",
                "--slices=all",
                "--metrics-bind-address=127.0.0.1:" + controllerMetrics,
                "--health-probe-bind-address=127.0.0.1:" + freePort()),
            work.resolve("controller.log")));
    prometheusPort = freePort();
    processes.add(
        startPrometheus(
            prometheus, proxyMetrics, controllerMetrics, work.resolve("prometheus.log")));

    // Until its Node exists the proxy's /healthz answers 503, which the dashboard counts.
    await("the proxy's /healthz answering 503 while its Node is missing")
        .atMost(SETTLE)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> status("http://127.0.0.1:" + proxyHealthz + "/healthz") == 503);
    kube.nodes().resource(node("node-a", "zone-a", "10.0.0.1", "10.244.0.0/24")).create();

    // Once the controller has written old's hints, old stops asking for them: a hint removal.
    await("the controller writing old's zone hints")
        .atMost(SETTLE)
        .until(
            () ->
                hinted(
                    kube.discovery()
                        .v1()
                        .endpointSlices()
                        .inNamespace("shop")
                        .withName("old-1")
                        .get()));
    writeRetryingConflicts(
        "old's trafficDistribution removed",
        () ->
            kube.services()
                .inNamespace("shop")
                .withName("old")
                .edit(
                    service -> {
                      service.getSpec().setTrafficDistribution(null);
                      return service;
                    }));

    // An endpoint change after the proxy started, stamped as the EndpointSlice controller does:
    // a partial sync, and a network programming latency.
    var added = slice("web", "10.244.2.11", "node-c", "zone-c").getEndpoints().get(0);
    writeRetryingConflicts(
        "an endpoint added to web",
        () ->
            kube.discovery()
                .v1()
                .endpointSlices()
                .inNamespace("shop")
                .withName("web-1")
                .edit(
                    slice -> {
                      slice.getEndpoints().add(added);
                      slice
                          .getMetadata()
                          .getAnnotations()
                          .put(
                              "endpoints.kubernetes.io/last-change-trigger-time",
                              Instant.now().toString());
                      return slice;
                    }));

    var queries = dashboardQueries(repository);
    try {
      await("every panel query returning series")
          .atMost(SETTLE)
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                var empty = new ArrayList<String>();
                for (var query : queries.entrySet()) {
                  if (query(grafana(query.getKey())).isEmpty()) {
                    empty.add(query.getValue() + ": " + query.getKey());
                  }
                }
                assertThat(empty).as("panel queries without series").isEmpty();
              });
      for (var variable : variableQueries(repository)) {
        assertThat(series(variable))
            .as("series behind the variable query on %s", variable)
            .isNotEmpty();
      }

      await("every alert expression evaluating to nothing")
          .atMost(SETTLE)
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                var raised = new LinkedHashMap<String, String>();
                for (var alert : alerts) {
                  var result = query(alert.expr());
                  if (!result.isEmpty()) {
                    raised.put(alert.name(), result.toString());
                  }
                }
                assertThat(raised).as("alert expressions true in a healthy cluster").isEmpty();
              });
      assertThat(loadedRules())
          .as("the rules Prometheus loaded and evaluated without error")
          .containsExactlyInAnyOrderElementsOf(alerts.stream().map(Alert::name).toList());
    } catch (AssertionError | RuntimeException failed) {
      for (var log : List.of("proxy.log", "controller.log", "prometheus.log")) {
        var text = AlertRules.read(work.resolve(log));
        failed.addSuppressed(
            new AssertionError(
                log
                    + " (last 4000 characters):\n"
                    + text.substring(Math.max(0, text.length() - 4000))));
      }
      throw failed;
    }
  }

  // --------------------------------------------------------------- Prometheus

  private Process startPrometheus(Path prometheus, int proxy, int controller, Path log)
      throws IOException {
    var config =
        Files.writeString(
            work.resolve("prometheus.yml"),
            """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            rule_files:
              - %s
            scrape_configs:
              - job_name: proxima-proxy
                static_configs:
                  - targets: ["127.0.0.1:%d"]
                    labels: {node: node-a}
              - job_name: proxima-controller
                static_configs:
                  - targets: ["127.0.0.1:%d"]
            """
                .formatted(AlertRules.RULE_FILE, proxy, controller));
    var process =
        new ProcessBuilder(
                prometheus.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("data"),
                "--web.listen-address=127.0.0.1:" + prometheusPort,
                "--log.level=warn")
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    await("Prometheus ready")
        .atMost(SETTLE)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> status(prometheusUrl("/-/ready")) == 200);
    return process;
  }

  /** The result of an instant query; fails unless Prometheus parsed and evaluated it. */
  private JsonNode query(String promql) throws IOException, InterruptedException {
    var body =
        get(
            prometheusUrl(
                "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)));
    assertThat(body.path("status").asText()).as("%s: %s", promql, body).isEqualTo("success");
    var result = body.path("data").path("result");
    return body.path("data").path("resultType").asText().equals("scalar")
        ? JSON.createArrayNode().add(result)
        : result;
  }

  private JsonNode series(String match) throws IOException, InterruptedException {
    var body =
        get(
            prometheusUrl(
                "/api/v1/series?match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8)));
    assertThat(body.path("status").asText()).as("%s: %s", match, body).isEqualTo("success");
    return body.path("data");
  }

  /** The alerting rules Prometheus evaluated at least once, without error. */
  private List<String> loadedRules() throws IOException, InterruptedException {
    var body = get(prometheusUrl("/api/v1/rules?type=alert"));
    var names = new ArrayList<String>();
    for (var group : body.path("data").path("groups")) {
      for (var rule : group.path("rules")) {
        assertThat(rule.path("health").asText())
            .as("%s: %s", rule.path("name").asText(), rule.path("lastError").asText())
            .isEqualTo("ok");
        names.add(rule.path("name").asText());
      }
    }
    return names;
  }

  private JsonNode get(String url) throws IOException, InterruptedException {
    var response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private String prometheusUrl(String path) {
    return "http://127.0.0.1:" + prometheusPort + path;
  }

  // --------------------------------------------------------------- the dashboard

  /** Each panel target's expression, with its panel's title. */
  private static Map<String, String> dashboardQueries(Path repository) throws IOException {
    var queries = new LinkedHashMap<String, String>();
    collectTargets(JSON.readTree(repository.resolve(DASHBOARD).toFile()).path("panels"), queries);
    assertThat(queries).as("panel queries in %s", DASHBOARD).hasSizeGreaterThan(20);
    return queries;
  }

  private static void collectTargets(JsonNode panels, Map<String, String> into) {
    for (var panel : panels) {
      for (var target : panel.path("targets")) {
        into.putIfAbsent(target.path("expr").asText(), panel.path("title").asText());
      }
      collectTargets(panel.path("panels"), into);
    }
  }

  /** The metric of each {@code label_values(metric, label)} variable query. */
  private static List<String> variableQueries(Path repository) throws IOException {
    var metrics = new ArrayList<String>();
    var dashboard = JSON.readTree(repository.resolve(DASHBOARD).toFile());
    for (var variable : dashboard.path("templating").path("list")) {
      var definition = variable.path("definition").asText();
      if (definition.startsWith("label_values(")) {
        metrics.add(definition.substring("label_values(".length(), definition.indexOf(',')).trim());
      }
    }
    assertThat(metrics).as("variable queries").isNotEmpty();
    return metrics;
  }

  /** A panel query as Grafana sends it: every instance selected, its time variables filled in. */
  private static String grafana(String query) {
    return query
        .replace("$proxy", ".+")
        .replace("$controller", ".+")
        .replace("$__rate_interval", "15s")
        .replace("$__range", "1m");
  }

  // --------------------------------------------------------------- the cluster

  private static Node node(String name, String zone, String address, String podCidr) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("topology.kubernetes.io/zone", zone)
        .addToLabels("kubernetes.io/hostname", name)
        .endMetadata()
        .withNewSpec()
        .withPodCIDRs(podCidr)
        .withPodCIDR(podCidr)
        .endSpec()
        .withNewStatus()
        .addToAllocatable("cpu", new Quantity("4"))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(address)
        .endAddress()
        .endStatus()
        .build();
  }

  private static Service service(String name, String clusterIp, String type, String distribution) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType(type)
        .withClusterIP(clusterIp)
        .withClusterIPs(clusterIp)
        .withIpFamilies("IPv4")
        .withTrafficDistribution(distribution)
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNewTargetPort(8080)
        .withNodePort(type.equals("NodePort") ? 30080 : null)
        .endPort()
        .endSpec()
        .build();
  }

  /** A ready endpoint's slice, stamped as changed long before the proxy started. */
  private static EndpointSlice slice(String service, String address, String node, String zone) {
    var slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName(service + "-1")
            .addToLabels("kubernetes.io/service-name", service)
            .addToLabels(
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
            .addToAnnotations(
                "endpoints.kubernetes.io/last-change-trigger-time", "2020-01-01T00:00:00Z")
            .endMetadata()
            .withAddressType("IPv4")
            .addNewEndpoint()
            .withAddresses(address)
            .withNodeName(node)
            .withZone(zone)
            .withNewConditions()
            .withReady(true)
            .withServing(true)
            .withTerminating(false)
            .endConditions()
            .endEndpoint()
            .addNewPort()
            .withName("http")
            .withProtocol("TCP")
            .withPort(8080)
            .endPort()
            .build();
    return slice;
  }

  private static boolean hinted(EndpointSlice slice) {
    return slice != null
        && slice.getEndpoints().stream()
            .allMatch(
                e ->
                    e.getHints() != null
                        && e.getHints().getForZones() != null
                        && !e.getHints().getForZones().isEmpty());
  }

  /**
   * The controller writes the Services' conditions and the slices' hints too: a write of ours that
   * meets a newer version (409) is tried again on the fresh one.
   */
  private static void writeRetryingConflicts(String what, Runnable write) {
    await(what)
        .atMost(SETTLE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsInstanceOf(KubernetesClientException.class)
        .until(
            () -> {
              write.run();
              return true;
            });
  }

  // --------------------------------------------------------------- processes

  private static Path jar(String property, String defaultPath) {
    var jar = Path.of(System.getProperty(property, defaultPath)).toAbsolutePath();
    assertThat(jar)
        .as("the packaged jar (run through the reactor: ./mvnw verify -pl e2e -am)")
        .isRegularFile();
    return jar;
  }

  private static Process java(Path jar, List<String> args, Path log) {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"));
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(args);
    try {
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  private static int status(String url) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException unanswered) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static int freePort() {
    try (var socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
