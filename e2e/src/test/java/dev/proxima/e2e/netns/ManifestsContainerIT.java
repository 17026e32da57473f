package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.proxy.model.ProxyMode;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The images, run as deploy/overlays/replace-kube-proxy and deploy/cleanup say (see {@link
 * ContainerComponents}): the routing scenarios of {@link RoutingScenarios} with a proxy container
 * on every node and the controller container writing the hints, then what the manifests promise
 * about each container: probes and ports that answer, the controller's user and read-only root, and
 * the cleanup container leaving no rule behind. A probe, port, variable name or capability that
 * manifests and image disagree on fails here.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ManifestsContainerIT extends RoutingScenarios implements NetnsClusterExtension.InContainers {
  private static final Duration STARTUP = Duration.ofSeconds(90);

  @Override
  ProxyMode mode() {
    return ProxyMode.nftables;
  }

  @Test
  @Order(1)
  void eachProxyContainerAnswersItsProbesAndServesMetricsOnTheManifestsPorts(NetnsCluster cluster) {
    var components = (ContainerComponents) cluster.components();
    for (var node : cluster.layout.nodes()) {
      var proxy = components.proxy(node);
      assertThat(proxy.probes()).as("the proxy's probes").isNotEmpty();
      assertThat(proxy.ports()).as("the proxy's ports").containsKey("metrics");
      await("%s's probes and metrics".formatted(node.name()))
          .atMost(STARTUP)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                for (var probe : proxy.probes()) {
                  assertThat(
                          cluster
                              .clients()
                              .httpStatus(
                                  node.namespace(), node.ipv4(), probe.port(), probe.path()))
                      .as(
                          "%s on %s: GET %s on port %d",
                          probe.kind(), node.name(), probe.path(), probe.port())
                      .isEqualTo(200);
                }
                var metrics =
                    cluster
                        .clients()
                        .httpBody(
                            node.namespace(),
                            node.ipv4(),
                            proxy.ports().get("metrics"),
                            "/metrics");
                assertThat(metrics)
                    .as("/metrics on %s's metrics port", node.name())
                    .contains("kubeproxy_sync_proxy_rules_duration_seconds");
              });
    }
  }

  @Test
  @Order(1)
  void eachProxyContainerAndTheCommandOnItsPathMapTheJdksClassDataArchive(NetnsCluster cluster) {
    var components = (ContainerComponents) cluster.components();
    for (var node : cluster.layout.nodes()) {
      // An archive that does not fit the image's JVM is dropped without a word, and every start
      // is slower by the classes it held.
      var maps = components.execInProxy(node, "cat", "/proc/1/maps").assertSucceeded();
      assertThat(maps.stdout())
          .as("the proxy's JVM, the container's first process, maps the JDK's archive")
          .contains("/opt/java/lib/server/classes.jsa");
      // -Xshare:on fails a JVM that cannot map its archive.
      var version =
          components
              .execInProxy(
                  node, "env", "PROXIMA_CLI_JAVA_OPTIONS=-Xshare:on", "proxima-proxy", "--version")
              .assertSucceeded();
      assertThat(version.stdout()).startsWith("proxima-proxy ");
    }
  }

  @Test
  @Order(2)
  void eachProxyContainerAnswersExplainLiveThroughTheCommandOnItsPath(NetnsCluster cluster)
      throws Exception {
    var components = (ContainerComponents) cluster.components();
    for (var node : cluster.layout.nodes()) {
      // The first sync may still be under way right after the probes answered.
      await("%s's explain --live".formatted(node.name()))
          .atMost(STARTUP)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                var json = components.explainLive(node, "-o", "json").assertSucceeded();
                assertThat(json.stderr())
                    .as("the daemon's JAVA_OPTS stay out of the command")
                    .isEmpty();
                var report = new ObjectMapper().readTree(json.stdout());
                assertThat(report.path("node").asText()).isEqualTo(node.name());
                assertThat(report.path("sync").path("informersSynced").asBoolean()).isTrue();
                assertThat(
                        report.path("sync").path("families").get(0).path("lastFullSync").asText())
                    .matches("\\d{4}-.*Z");
                // The manifests run the nftables mode with --observe-locality=annotated.
                assertThat(report.path("observedLocality").path("counted").asBoolean()).isTrue();
              });
      var text = components.explainLive(node).assertSucceeded();
      assertThat(text.stdout())
          .startsWith("Node " + node.name() + " (zone ")
          .contains("Sync state of the proxy on " + node.name());
    }
  }

  @Test
  @Order(3)
  void theControllerContainerRunsAsUid65532OnAReadOnlyRootAndAnswersItsProbes(
      NetnsCluster cluster) {
    var components = (ContainerComponents) cluster.components();
    var controller = components.controller();
    var name = ContainerComponents.containerName(controller);

    var status = components.exec(name, "cat", "/proc/1/status").stdout();
    assertThat(status.lines().filter(l -> l.startsWith("Uid:") || l.startsWith("Gid:")))
        .as("the JVM's real, effective, saved and filesystem ids")
        .containsExactly("Uid:\t65532\t65532\t65532\t65532", "Gid:\t65532\t65532\t65532\t65532");
    var write = components.exec(name, "touch", "/opt/proxima/written");
    assertThat(write.exitCode()).as("writing to the image").isNotZero();
    assertThat(write.stderr()).contains("Read-only file system");

    var fabric = cluster.layout.fabric();
    assertThat(controller.probes()).as("the controller's probes").isNotEmpty();
    for (var probe : controller.probes()) {
      assertThat(
              cluster.clients().httpStatus(fabric, Layout.API_ADDRESS, probe.port(), probe.path()))
          .as("%s: GET %s on port %d", probe.kind(), probe.path(), probe.port())
          .isEqualTo(200);
    }
    assertThat(
            cluster
                .clients()
                .httpBody(
                    fabric, Layout.API_ADDRESS, controller.ports().get("metrics"), "/metrics"))
        .as("/metrics on the controller's metrics port")
        .contains("# TYPE");

    var hinted =
        cluster.applyHinted(
            cluster.workload("hinted-by-container").distributed("PreferSameZone"),
            cluster.ready("a1s1", "b1s1"));
    assertThat(cluster.slice(hinted).getEndpoints())
        .as("the controller container wrote a zone hint on every endpoint")
        .allSatisfy(e -> assertThat(e.getHints().getForZones()).isNotEmpty());
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void theCleanupContainerRemovesEveryRuleTheProxyContainersMade(NetnsCluster cluster) {
    var components = (ContainerComponents) cluster.components();
    for (var node : cluster.layout.nodes()) {
      assertThat(cluster.nftTables(node).keySet())
          .as("%s's proxy programmed its tables", node.name())
          .contains("table ip proxima {", "table ip6 proxima {");
    }
    // Uninstalling: the proxies stop, their rules stay in the kernel.
    cluster.layout.nodes().forEach(cluster::killProxy);

    for (var node : cluster.layout.nodes()) {
      var cleanup = components.cleanup(node);
      var result =
          components.runToCompletion(cleanup, components.networkNamespaceOf(cleanup, node));
      assertThat(result.exitCode())
          .as(
              "the cleanup container on %s exits 0:\n%s%s",
              node.name(), result.stdout(), result.stderr())
          .isZero();
      assertThat(cluster.nftTables(node).keySet())
          .as("%s has no proxima table left", node.name())
          .noneMatch(table -> table.contains("proxima"));
      assertThat(cluster.ruleset(node)).doesNotContain("proxima");
    }

    var node = cluster.layout.nodes().get(0);
    var done = components.cleanupDone(node);
    var log = cluster.workDir().resolve("cleanup-done.log");
    var process = components.start(done, components.networkNamespaceOf(done, node), log);
    try {
      var name = ContainerComponents.containerName(done);
      await("the cleanup pod's idle container runs")
          .atMost(Duration.ofSeconds(30))
          .until(() -> components.exec(name, "id", "-u").stdout().strip().equals("65532"));
      assertThat(process.isAlive()).as("it keeps running").isTrue();
    } finally {
      JavaProcesses.kill(process);
    }
  }
}
