package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.e2e.deploy.Kustomize.Rendered;
import dev.proxima.e2e.deploy.RequiredPermissions.Permission;
import dev.proxima.proxy.config.KubeProxyConfigFile;
import dev.proxima.proxy.testing.HostTools;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The manifests as {@code kubectl kustomize} renders them, checked for what goes wrong without a
 * sound: RBAC that drifted from the code, probes on a port nothing serves, a flag or variable the
 * binary does not know, an overlay that quietly lost its setting. Without kubectl on PATH every
 * test is skipped with a message saying so.
 */
class ManifestsTest {
  private static final String BASE = "deploy";
  private static final String REPLACE = "deploy/overlays/replace-kube-proxy";
  private static final String FROM_KUBE_PROXY = "deploy/overlays/from-kube-proxy";
  private static final String SIDE_BY_SIDE = "deploy/overlays/side-by-side";
  private static final String MONITORING = "deploy/overlays/monitoring";
  private static final String CLEANUP = "deploy/cleanup";
  private static final String KIND = "e2e/kind/overlay";

  private static final String NAMESPACE = "proxima-system";
  private static final String CONTROLLER_IMAGE = "proxima/controller:0.1.0";
  private static final String PROXY_IMAGE = "proxima/proxy:0.1.0";

  /** Variables the manifests set that no Proxima option reads, and who does. */
  private static final Map<String, String> OTHER_ENVIRONMENT =
      Map.of(
          "POD_NAME", "the downward API's pod name, used as $(POD_NAME)",
          "JAVA_OPTS", "the image's entrypoint, which passes it to java",
          "MALLOC_ARENA_MAX", "glibc's allocator under the JVM",
          "KUBERNETES_SERVICE_HOST", "fabric8's in-cluster config",
          "KUBERNETES_SERVICE_PORT", "fabric8's in-cluster config");

  private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private static final Map<String, Rendered> RENDERED = new ConcurrentHashMap<>();
  private static Path kubectl;
  private static Path repository;

  @BeforeAll
  static void findKubectl() {
    kubectl = Kustomize.kubectl().orElse(null);
    repository = Kustomize.repositoryRoot();
  }

  /** Per test, not per class: surefire reports a class-level skip as no tests at all. */
  @BeforeEach
  void needsKubectl() {
    assumeTrue(
        kubectl != null,
        "kubectl is not on PATH, so the manifests in deploy/ cannot be rendered and are NOT"
            + " checked; install kubectl (Debian: apt-get install kubernetes-client)");
  }

  private static Rendered rendered(String directory) {
    return RENDERED.computeIfAbsent(directory, dir -> Kustomize.render(kubectl, repository, dir));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, MONITORING, CLEANUP, KIND})
  void kubectlKustomizeRendersEveryDirectory(String directory) {
    assertThat(rendered(directory).objects()).as(directory).isNotEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void eachComponentsRolesGrantExactlyTheApiCallsItsCodeMakes(String directory) {
    var rendered = rendered(directory);

    var controller = controller(rendered);
    var leaseNamespace = controller.option("--leader-election-namespace");
    var leaseName = controller.option("--leader-election-lease-name");
    assertThat(grantsTo(rendered, controller.pod().getServiceAccountName()))
        .as("%s: what proxima-controller's roles grant", directory)
        .containsExactlyInAnyOrderElementsOf(
            RequiredPermissions.controller(leaseNamespace, leaseName));

    var proxy = proxy(rendered);
    assertThat(grantsTo(rendered, proxy.pod().getServiceAccountName()))
        .as("%s: what proxima-proxy's roles grant", directory)
        .containsExactlyInAnyOrderElementsOf(RequiredPermissions.PROXY);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void theControllersProbesAndMetricsPortAreWhereItServesThem(String directory) {
    var controller = controller(rendered(directory));
    var health = controller.option("--health-probe-bind-address");
    var metrics = controller.option("--metrics-bind-address");

    assertThat(health).as("health probe address").isEqualTo("0.0.0.0:8081");
    assertThat(metrics).as("metrics address").isEqualTo("0.0.0.0:8080");
    var container = controller.container();
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(port(container, container.getLivenessProbe().getHttpGet().getPort()))
        .isEqualTo(portOf(health));
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(port(container, container.getReadinessProbe().getHttpGet().getPort()))
        .isEqualTo(portOf(health));
    assertThat(port(container, new IntOrString("metrics"))).isEqualTo(portOf(metrics));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void theProxysProbesAndMetricsPortAreWhereItServesThem(String directory) {
    var proxy = proxy(rendered(directory));
    var healthz = proxy.option("--healthz-bind-address");
    var metrics = proxy.option("--metrics-bind-address");

    // Kubelet probes and Prometheus scrape the node's address; the built-in metrics default is
    // 127.0.0.1, which neither reaches.
    assertThat(hostOf(healthz)).as("healthz host").isIn("0.0.0.0", "", "::");
    assertThat(hostOf(metrics)).as("metrics host").isIn("0.0.0.0", "", "::");
    if (directory.equals(SIDE_BY_SIDE)) {
      assertThat(List.of(portOf(healthz), portOf(metrics)))
          .as("ports next to kube-proxy's 10256 and 10249")
          .containsExactly(10356, 10349);
    } else {
      assertThat(List.of(portOf(healthz), portOf(metrics))).containsExactly(10256, 10249);
    }
    var container = proxy.container();
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/livez");
    assertThat(port(container, container.getLivenessProbe().getHttpGet().getPort()))
        .isEqualTo(portOf(healthz));
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(port(container, container.getReadinessProbe().getHttpGet().getPort()))
        .isEqualTo(portOf(healthz));
    assertThat(port(container, new IntOrString("metrics"))).isEqualTo(portOf(metrics));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void theProxyRunsOnEveryNodesHostNetworkWithOnlyNetAdminAndNetRaw(String directory) {
    var rendered = rendered(directory);
    var proxy = proxy(rendered);
    var pod = proxy.pod();
    var container = proxy.container();

    assertThat(pod.getHostNetwork()).as("hostNetwork").isTrue();
    assertThat(pod.getDnsPolicy())
        .as("the node's resolver, see the DaemonSet")
        .isEqualTo("Default");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getTolerations())
        .extracting(Toleration::getOperator, Toleration::getKey, Toleration::getEffect)
        .contains(org.assertj.core.groups.Tuple.tuple("Exists", null, null));
    var nodeName = env(container, "NODE_NAME");
    assertThat(nodeName.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
    assertThat(proxy.option("--node-name")).isEqualTo("fieldRef:spec.nodeName");

    var security = container.getSecurityContext();
    assertThat(security.getPrivileged()).as("privileged").isNotEqualTo(Boolean.TRUE);
    assertThat(security.getCapabilities().getAdd())
        .containsExactlyInAnyOrder("NET_ADMIN", "NET_RAW");
    assertThat(security.getCapabilities().getDrop()).contains("ALL");
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();

    var strategy = rendered.one(DaemonSet.class, "proxima-proxy").getSpec().getUpdateStrategy();
    assertThat(strategy.getType()).isEqualTo("RollingUpdate");
    assertThat(strategy.getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString(1));
    assertThat(strategy.getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString(0));

    assertThat(hostPathMount(pod, container, "/run/xtables.lock"))
        .isEqualTo("/run/xtables.lock FileOrCreate read-write");
    assertThat(hostPathMount(pod, container, "/lib/modules"))
        .startsWith("/lib/modules ")
        .endsWith(" read-only");
    // The proxy keeps no state on the host: a restart builds the table again beside the old one.
    assertThat(pod.getVolumes())
        .noneMatch(
            volume ->
                volume.getHostPath() != null
                    && volume.getHostPath().getPath().startsWith("/var/lib/proxima"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void theControllerRunsTwoNonRootReplicasThatElectALeader(String directory) {
    var rendered = rendered(directory);
    var controller = controller(rendered);
    var deployment = rendered.one(Deployment.class, "proxima-controller");
    var pod = controller.pod();
    var container = controller.container();

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(controller.option("--leader-elect")).isEqualTo("true");
    assertThat(controller.option("--leader-election-namespace")).isEqualTo(NAMESPACE);
    assertThat(
            env(container, "PROXIMA_LEADER_ELECTION_NAMESPACE")
                .getValueFrom()
                .getFieldRef()
                .getFieldPath())
        .isEqualTo("metadata.namespace");
    assertThat(controller.option("--leader-election-identity")).isEqualTo("$(POD_NAME)");
    assertThat(env(container, "POD_NAME").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.name");
    assertThat(controller.option("--log-format")).isEqualTo("json");
    assertThat(env(container, "JAVA_OPTS").getValue()).contains("-XX:MaxRAMPercentage=");

    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var security = container.getSecurityContext();
    assertThat(security.getReadOnlyRootFilesystem()).isTrue();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(container.getResources().getLimits()).containsKey("memory");

    var podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(pod.getTopologySpreadConstraints())
        .anySatisfy(c -> assertThat(c.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
    var budget = rendered.one(PodDisruptionBudget.class, "proxima-controller");
    assertThat(budget.getSpec().getMinAvailable()).isEqualTo(new IntOrString(1));
    assertThat(podLabels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, CLEANUP, KIND})
  void everyFlagAndEnvironmentVariableIsOneTheBinaryKnows(String directory) {
    var rendered = rendered(directory);
    var problems = new ArrayList<String>();
    for (var workload : workloads(rendered)) {
      var pod = workload.pod();
      for (var container :
          Stream.concat(listOf(pod.getInitContainers()).stream(), pod.getContainers().stream())
              .toList()) {
        var where = workload.name() + "/" + container.getName();
        var binary = CommandLines.forImage(container.getImage());
        if (binary.isEmpty()) {
          problems.add(where + ": image " + container.getImage() + " is not a Proxima image");
          continue;
        }
        if (!listOf(container.getCommand()).isEmpty()) {
          // Replaces the image's `java -jar` entrypoint; the cleanup DaemonSet's idle container.
          assertThat(container.getCommand()).as(where).containsExactly("sleep", "infinity");
          continue;
        }
        problems.addAll(
            checkCommandLine(rendered, workload.namespace(), where, binary.get(), container));
      }
    }
    assertThat(problems).as(directory).isEmpty();
  }

  /**
   * Some flags only go together (one compiler thread needs C1-only code) and a misspelt one stops
   * the JVM before the proxy logs anything: a pod in a crash loop on every node. The JVM running
   * this test is the images' major version. The flags go in JAVA_OPTS, which the images'
   * entrypoints pass to java: the JVM announces JAVA_TOOL_OPTIONS (and JDK_JAVA_OPTIONS and
   * _JAVA_OPTIONS) in a line of its own, which is not JSON.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, KIND})
  void theJvmStartsWithEachComponentsJavaOpts(String directory, @TempDir Path work) {
    var rendered = rendered(directory);
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (var component : List.of(controller(rendered), proxy(rendered))) {
      var name = component.container().getName();
      for (var announced : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
        assertThat(component.environment(announced))
            .as("%s: %s sets %s, which the JVM announces", directory, name, announced)
            .isNull();
      }
      var options = component.environment("JAVA_OPTS");
      assertThat(options).as("%s: %s's JAVA_OPTS", directory, name).isNotBlank();
      var command = new ArrayList<String>();
      command.add(java);
      command.addAll(List.of(options.trim().split("\\s+")));
      command.add("-version");
      HostTools.run(work, command.toArray(String[]::new)).assertSucceeded();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, SIDE_BY_SIDE, CLEANUP, KIND})
  void theContainersRunTheTwoProximaImages(String directory) {
    var images = new HashSet<String>();
    for (var workload : workloads(rendered(directory))) {
      listOf(workload.pod().getInitContainers()).forEach(c -> images.add(c.getImage()));
      workload.pod().getContainers().forEach(c -> images.add(c.getImage()));
    }
    if (directory.equals(CLEANUP)) {
      assertThat(images).containsExactly(PROXY_IMAGE);
    } else {
      assertThat(images).containsExactlyInAnyOrder(CONTROLLER_IMAGE, PROXY_IMAGE);
    }
  }

  @Test
  void theSideBySideOverlayGivesTheProxyTheServiceProxyNameProxima() {
    var proxy = proxy(rendered(SIDE_BY_SIDE));

    assertThat(proxy.option("--service-proxy-name")).isEqualTo("proxima");
    // kube-proxy serves the `kubernetes` Service here, so the proxy uses it like any pod.
    assertThat(proxy.container().getEnv())
        .extracting(EnvVar::getName)
        .doesNotContain("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT");
    assertThat(proxy(rendered(REPLACE)).option("--service-proxy-name")).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, FROM_KUBE_PROXY, KIND})
  void withoutKubeProxyTheProxyIsToldWhereTheApiServerIs(String directory) {
    var proxy = proxy(rendered(directory));

    var host = proxy.environment("KUBERNETES_SERVICE_HOST");
    var port = proxy.environment("KUBERNETES_SERVICE_PORT");
    if (directory.equals(KIND)) {
      assertThat(host).isEqualTo("proxima-control-plane");
      assertThat(proxy.option("--cluster-cidr")).isEqualTo("10.244.0.0/16");
    } else {
      assertThat(host)
          .as("the placeholder the proxy's log names")
          .isEqualTo("set-api-server-host.invalid");
    }
    assertThat(Integer.parseInt(port)).isBetween(1, 65535);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, SIDE_BY_SIDE, KIND})
  void theProxyTellsPodTrafficByItsNodesPodCidrsWithoutAnyCidrToConfigure(String directory) {
    var proxy = proxy(rendered(directory));

    assertThat(proxy.option("--detect-local-mode")).isEqualTo("NodeCIDR");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {BASE, REPLACE, SIDE_BY_SIDE, FROM_KUBE_PROXY, KIND})
  void theProxyCountsTheConnectionsOfAnnotatedServicesByLocality(String directory) {
    var proxy = proxy(rendered(directory));

    assertThat(proxy.option("--observe-locality")).isEqualTo("annotated");
  }

  @Test
  void theFromKubeProxyOverlayLeavesLocalTrafficDetectionToKubeProxysFile() {
    var proxy = proxy(rendered(FROM_KUBE_PROXY));

    // Empty: not given, so ConfigFileSettings takes the file's detectLocalMode.
    assertThat(proxy.environment("PROXIMA_DETECT_LOCAL_MODE")).isNullOrEmpty();
  }

  @Test
  void theFromKubeProxyOverlayMountsAKubeProxyConfigurationWhereRunConfigReadsIt()
      throws Exception {
    var rendered = rendered(FROM_KUBE_PROXY);
    var proxy = proxy(rendered);

    var file = Path.of(proxy.option("--config"));
    var mount =
        proxy.container().getVolumeMounts().stream()
            .filter(m -> file.getParent().equals(Path.of(m.getMountPath())))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing is mounted at " + file.getParent()));
    var volume =
        proxy.pod().getVolumes().stream()
            .filter(v -> v.getName().equals(mount.getName()))
            .findFirst()
            .orElseThrow();
    var text =
        rendered
            .one(ConfigMap.class, volume.getConfigMap().getName())
            .getData()
            .get(file.getFileName().toString());
    assertThat(text).as("the ConfigMap key behind %s", file).isNotNull();
    // The file as shipped is one `run --config` accepts, and it changes nothing.
    var settings = KubeProxyConfigFile.parse(file.toString(), text, null);
    assertThat(settings.ignored()).isEmpty();
    assertThat(settings.clusterCidrs()).isNull();
    // Otherwise it is the replace overlay: every Service, kube-proxy's ports.
    assertThat(proxy.option("--service-proxy-name")).isNull();
    assertThat(proxy.option("--healthz-bind-address")).isEqualTo("0.0.0.0:10256");
  }

  @Test
  void theMonitoringOverlayHasOnePodMonitorPerComponentOnItsMetricsPortAndTheAlertRules() {
    var objects = rendered(MONITORING).objects();
    var base = rendered(BASE);

    assertThat(objects)
        .extracting(o -> o.getApiVersion() + " " + o.getKind() + " " + o.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "monitoring.coreos.com/v1 PodMonitor proxima-controller",
            "monitoring.coreos.com/v1 PodMonitor proxima-proxy",
            "monitoring.coreos.com/v1 PrometheusRule proxima");
    var monitors = objects.stream().filter(o -> "PodMonitor".equals(o.getKind())).toList();
    for (var monitor : monitors) {
      var name = monitor.getMetadata().getName();
      var workload =
          workloads(base).stream().filter(w -> w.name().equals(name)).findFirst().orElseThrow();
      assertThat(monitor.getMetadata().getNamespace()).isEqualTo(workload.namespace());
      @SuppressWarnings("unchecked")
      var spec =
          (Map<String, Object>)
              ((GenericKubernetesResource) monitor).getAdditionalProperties().get("spec");
      @SuppressWarnings("unchecked")
      var selector =
          (Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels");
      assertThat(workload.labels()).as(name + " pod labels").containsAllEntriesOf(selector);
      // ...and nothing else: the controller's selector must not pick up the proxy, or vice versa.
      for (var other : workloads(base)) {
        if (!other.name().equals(name)) {
          assertThat(other.labels().entrySet().containsAll(selector.entrySet()))
              .as(name + "'s selector matches " + other.name())
              .isFalse();
        }
      }
      @SuppressWarnings("unchecked")
      var endpoints = (List<Map<String, Object>>) spec.get("podMetricsEndpoints");
      assertThat(endpoints).hasSize(1);
      assertThat(endpoints.get(0))
          .containsEntry("port", "metrics")
          .containsEntry("path", "/metrics");
      assertThat(workload.pod().getContainers())
          .flatExtracting(c -> listOf(c.getPorts()))
          .extracting(ContainerPort::getName)
          .contains("metrics");
    }
  }

  /**
   * deploy/README.md's RBAC table says it lists exactly what the code calls: each row's API,
   * namespace, verbs and object names, read back, are exactly what the base's roles grant.
   */
  @Test
  void theRbacTableInTheDeployReadmeListsExactlyWhatTheRolesGrant() throws Exception {
    var rendered = rendered(BASE);
    var table = RbacTable.read(repository.resolve("deploy/README.md"));

    assertThat(table.get("controller"))
        .as("the controller's rows in deploy/README.md")
        .containsExactlyInAnyOrderElementsOf(
            grantsTo(rendered, controller(rendered).pod().getServiceAccountName()));
    assertThat(table.get("proxy"))
        .as("the proxy's rows in deploy/README.md")
        .containsExactlyInAnyOrderElementsOf(
            grantsTo(rendered, proxy(rendered).pod().getServiceAccountName()));
  }

  /** docs/controller.md's Permissions table names the groups, resources and verbs granted. */
  @Test
  void theControllerPagesPermissionsTableNamesWhatTheRolesGrant() throws Exception {
    var rendered = rendered(BASE);
    var granted = new java.util.TreeSet<String>();
    for (var grant : grantsTo(rendered, controller(rendered).pod().getServiceAccountName())) {
      granted.add(
          (grant.apiGroup().isEmpty() ? "core" : grant.apiGroup())
              + " "
              + grant.resource()
              + " "
              + grant.verb());
    }

    assertThat(RbacTable.permissionsSection(repository.resolve("docs/controller.md")))
        .as("docs/controller.md's Permissions table")
        .isEqualTo(granted);
  }

  /** What docs/troubleshooting.md tells a reader to check about the Lease is what is granted. */
  @Test
  void theTroubleshootingPageNamesTheLeaseVerbsTheRolesGrant() throws Exception {
    var rendered = rendered(BASE);
    var controller = controller(rendered);
    var leaseVerbs = new java.util.TreeSet<String>();
    for (var grant : grantsTo(rendered, controller.pod().getServiceAccountName())) {
      if (grant.resource().equals("leases")) {
        leaseVerbs.add(grant.verb());
      }
    }

    var mentions = RbacTable.leaseVerbMentions(repository.resolve("docs/troubleshooting.md"));

    assertThat(mentions)
        .as("passages of docs/troubleshooting.md on Lease permissions")
        .isNotEmpty();
    assertThat(mentions)
        .allSatisfy(
            (passage, verbs) ->
                assertThat(verbs).as("verbs named in: %s", passage).isEqualTo(leaseVerbs));
    assertThat(String.join(" ", mentions.keySet()))
        .contains("`" + controller.option("--leader-election-lease-name") + "`")
        .contains("`" + controller.option("--leader-election-namespace") + "`");
  }

  @Test
  void theCleanupDaemonSetRunsTheProxysCleanupCommandOnEveryNode() {
    var cleanup = rendered(CLEANUP).one(DaemonSet.class, "proxima-cleanup");
    var pod = cleanup.getSpec().getTemplate().getSpec();

    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getTolerations())
        .extracting(Toleration::getOperator, Toleration::getKey)
        .contains(org.assertj.core.groups.Tuple.tuple("Exists", null));
    assertThat(pod.getInitContainers()).hasSize(1);
    var init = pod.getInitContainers().get(0);
    assertThat(init.getImage()).isEqualTo(PROXY_IMAGE);
    assertThat(init.getArgs()).containsExactly("cleanup");
    assertThat(init.getSecurityContext().getCapabilities().getAdd())
        .as("NET_RAW for the legacy iptables backend")
        .containsExactly("NET_ADMIN", "NET_RAW");
    assertThat(init.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
  }

  @Test
  void theNamespaceAdmitsThePrivilegedProxyPods() {
    var namespace = rendered(BASE).one(Namespace.class, NAMESPACE);

    assertThat(namespace.getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
  }

  // --- the rendered workloads, seen through the binary they run ---

  /** A Deployment or DaemonSet in a rendering. */
  record Workload(String name, String namespace, Map<String, String> labels, PodSpec pod) {}

  private static List<Workload> workloads(Rendered rendered) {
    var workloads = new ArrayList<Workload>();
    for (var deployment : rendered.all(Deployment.class)) {
      var template = deployment.getSpec().getTemplate();
      workloads.add(
          new Workload(
              deployment.getMetadata().getName(),
              deployment.getMetadata().getNamespace(),
              template.getMetadata().getLabels(),
              template.getSpec()));
    }
    for (var daemonSet : rendered.all(DaemonSet.class)) {
      var template = daemonSet.getSpec().getTemplate();
      workloads.add(
          new Workload(
              daemonSet.getMetadata().getName(),
              daemonSet.getMetadata().getNamespace(),
              template.getMetadata().getLabels(),
              template.getSpec()));
    }
    return workloads;
  }

  /** One Proxima container and what its command line resolves to. */
  record Component(
      Rendered rendered, String namespace, PodSpec pod, Container container, CommandLines binary) {

    /**
     * The value an option ends up with: from args, else from the variable its default reads (a
     * literal, a ConfigMap key, or "fieldRef:PATH"), else its built-in default; null if none.
     */
    String option(String name) {
      CommandLine.ParseResult parsed;
      try {
        parsed = binary.fresh().parseArgs(container.getArgs().toArray(String[]::new));
      } catch (CommandLine.ParameterException invalid) {
        throw new AssertionError(
            rendered.directory()
                + ": "
                + container.getName()
                + "'s args "
                + container.getArgs()
                + " do not parse: "
                + invalid.getMessage(),
            invalid);
      }
      var run = parsed.subcommand();
      var spec = binary.subcommand(container.getArgs().get(0)).orElseThrow().findOption(name);
      assertThat(spec).as("option " + name).isNotNull();
      var matched = run.matchedOption(name);
      if (matched != null) {
        var values = matched.stringValues();
        return values.isEmpty()
            ? String.valueOf((Object) matched.getValue())
            : values.get(values.size() - 1);
      }
      for (var variable : CommandLines.environmentNames(spec)) {
        var value = resolve(rendered, namespace, container, variable);
        if (value.isPresent()) {
          return value.get();
        }
      }
      return CommandLines.builtInDefault(spec).orElse(null);
    }

    /** A variable's value as the container sees it. */
    String environment(String name) {
      return resolve(rendered, namespace, container, name).orElse(null);
    }
  }

  private static Component controller(Rendered rendered) {
    var deployment = rendered.one(Deployment.class, "proxima-controller");
    var pod = deployment.getSpec().getTemplate().getSpec();
    return new Component(
        rendered,
        deployment.getMetadata().getNamespace(),
        pod,
        container(pod, "controller"),
        CommandLines.CONTROLLER);
  }

  private static Component proxy(Rendered rendered) {
    var daemonSet = rendered.one(DaemonSet.class, "proxima-proxy");
    var pod = daemonSet.getSpec().getTemplate().getSpec();
    return new Component(
        rendered,
        daemonSet.getMetadata().getNamespace(),
        pod,
        container(pod, "proxy"),
        CommandLines.PROXY);
  }

  private static Container container(PodSpec pod, String name) {
    return pod.getContainers().stream()
        .filter(c -> name.equals(c.getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container named " + name));
  }

  private static EnvVar env(Container container, String name) {
    return listOf(container.getEnv()).stream()
        .filter(e -> name.equals(e.getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " does not set " + name));
  }

  /**
   * A variable's value: a literal, a ConfigMap key (which must exist unless optional), the pod's
   * namespace, or "fieldRef:PATH" for other downward-API fields.
   */
  private static Optional<String> resolve(
      Rendered rendered, String namespace, Container container, String name) {
    var variable =
        listOf(container.getEnv()).stream().filter(e -> name.equals(e.getName())).findFirst();
    if (variable.isEmpty()) {
      return Optional.empty();
    }
    var env = variable.get();
    if (env.getValueFrom() == null) {
      return Optional.ofNullable(env.getValue());
    }
    var from = env.getValueFrom();
    if (from.getFieldRef() != null) {
      var path = from.getFieldRef().getFieldPath();
      return Optional.of(path.equals("metadata.namespace") ? namespace : "fieldRef:" + path);
    }
    if (from.getConfigMapKeyRef() != null) {
      var ref = from.getConfigMapKeyRef();
      var configMap = rendered.configMap(namespace, ref.getName());
      var value = configMap.map(cm -> cm.getData() == null ? null : cm.getData().get(ref.getKey()));
      if (value.isEmpty() && !Boolean.TRUE.equals(ref.getOptional())) {
        throw new AssertionError(
            rendered.directory()
                + ": "
                + container.getName()
                + " reads "
                + name
                + " from ConfigMap "
                + ref.getName()
                + " key "
                + ref.getKey()
                + ", which the rendering does not have");
      }
      return value;
    }
    throw new AssertionError(
        container.getName() + ": " + name + " comes from an unexpected source");
  }

  /** What is wrong with one container's args and env, as the real command line sees them. */
  private static List<String> checkCommandLine(
      Rendered rendered, String namespace, String where, CommandLines binary, Container container) {
    var problems = new ArrayList<String>();
    var args = listOf(container.getArgs());
    if (args.isEmpty()) {
      return List.of(where + ": no args, so no subcommand");
    }
    var subcommand = binary.subcommand(args.get(0));
    if (subcommand.isEmpty()) {
      return List.of(
          where + ": " + args.get(0) + " is not a subcommand of the " + binary + " binary");
    }
    CommandSpec spec = subcommand.get();
    var options = CommandLines.optionNames(spec);
    for (var arg : args.subList(1, args.size())) {
      if (arg.startsWith("-")) {
        var name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        if (!options.contains(name)) {
          problems.add(where + ": " + args.get(0) + " has no option " + name);
        }
      }
    }
    try {
      binary.fresh().parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException invalid) {
      problems.add(where + ": args " + args + " do not parse: " + invalid.getMessage());
    }

    var known = CommandLines.environmentNames(spec);
    var defined = new HashSet<String>();
    for (var env : listOf(container.getEnv())) {
      var name = env.getName();
      if (name.startsWith("PROXIMA_") || !OTHER_ENVIRONMENT.containsKey(name)) {
        if (!known.contains(name)) {
          problems.add(
              where
                  + ": no option of "
                  + args.get(0)
                  + " reads "
                  + name
                  + " (and it is not one of "
                  + OTHER_ENVIRONMENT.keySet()
                  + ")");
        }
      }
      if (env.getValue() != null) {
        var references = REFERENCE.matcher(env.getValue());
        while (references.find()) {
          if (!defined.contains(references.group(1))) {
            problems.add(
                where
                    + ": "
                    + name
                    + " refers to $("
                    + references.group(1)
                    + "), which is not set before it");
          }
        }
      }
      defined.add(name);
      var option = CommandLines.optionReading(spec, name);
      var value = resolve(rendered, namespace, container, name);
      if (option.isPresent()
          && value.isPresent()
          && !value.get().isEmpty()
          && !value.get().startsWith("fieldRef:")
          && !REFERENCE.matcher(value.get()).find()) {
        var optionName = option.get().longestName();
        if (!options.contains(optionName)) {
          continue;
        }
        if (option.get().type() == boolean.class || option.get().type() == Boolean.class) {
          if (!Set.of("true", "false").contains(value.get().toLowerCase(java.util.Locale.ROOT))) {
            problems.add(where + ": " + name + "=" + value.get() + " is not true or false");
          }
          continue;
        }
        try {
          binary.fresh().parseArgs(args.get(0), optionName + "=" + value.get());
        } catch (CommandLine.ParameterException invalid) {
          problems.add(
              where
                  + ": "
                  + name
                  + "="
                  + value.get()
                  + " is not a valid "
                  + optionName
                  + ": "
                  + invalid.getMessage());
        }
      }
    }
    return problems;
  }

  // --- RBAC ---

  /** Everything the roles bound to this ServiceAccount (in proxima-system) grant. */
  private static Set<Permission> grantsTo(Rendered rendered, String serviceAccount) {
    assertThat(serviceAccount).as("serviceAccountName").isNotNull();
    var grants = new HashSet<Permission>();
    for (var binding : rendered.all(ClusterRoleBinding.class)) {
      if (binds(binding.getSubjects(), serviceAccount)) {
        assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
        grants.addAll(
            permissions(
                rendered.one(ClusterRole.class, binding.getRoleRef().getName()).getRules(), null));
      }
    }
    for (var binding : rendered.all(RoleBinding.class)) {
      if (binds(binding.getSubjects(), serviceAccount)) {
        var namespace = binding.getMetadata().getNamespace();
        var role = binding.getRoleRef();
        List<PolicyRule> rules;
        if (role.getKind().equals("Role")) {
          rules =
              rendered.all(Role.class).stream()
                  .filter(r -> r.getMetadata().getName().equals(role.getName()))
                  .filter(r -> r.getMetadata().getNamespace().equals(namespace))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new AssertionError(
                              "RoleBinding "
                                  + binding.getMetadata().getName()
                                  + " names a missing Role"))
                  .getRules();
        } else {
          rules = rendered.one(ClusterRole.class, role.getName()).getRules();
        }
        grants.addAll(permissions(rules, namespace));
      }
    }
    return grants;
  }

  private static boolean binds(List<Subject> subjects, String serviceAccount) {
    return listOf(subjects).stream()
        .anyMatch(
            s ->
                "ServiceAccount".equals(s.getKind())
                    && serviceAccount.equals(s.getName())
                    && NAMESPACE.equals(s.getNamespace()));
  }

  private static List<Permission> permissions(List<PolicyRule> rules, String namespace) {
    var permissions = new ArrayList<Permission>();
    for (var rule : rules) {
      assertThat(listOf(rule.getNonResourceURLs())).as("nonResourceURLs").isEmpty();
      var names =
          listOf(rule.getResourceNames()).isEmpty()
              ? Arrays.asList((String) null)
              : rule.getResourceNames();
      for (var group : rule.getApiGroups()) {
        for (var resource : rule.getResources()) {
          for (var verb : rule.getVerbs()) {
            for (var name : names) {
              permissions.add(new Permission(namespace, group, resource, verb, name));
            }
          }
        }
      }
    }
    return permissions;
  }

  // --- small helpers ---

  private static int port(Container container, IntOrString port) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    return listOf(container.getPorts()).stream()
        .filter(p -> port.getStrVal().equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(container.getName() + " has no port named " + port.getStrVal()));
  }

  private static int portOf(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  private static String hostOf(String address) {
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** "PATH TYPE read-only|read-write" of the hostPath volume mounted at mountPath. */
  private static String hostPathMount(PodSpec pod, Container container, String mountPath) {
    var mount =
        listOf(container.getVolumeMounts()).stream()
            .filter(m -> mountPath.equals(m.getMountPath()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing is mounted at " + mountPath));
    var volume =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals(mount.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(volume.getHostPath()).as(mountPath + " is a hostPath").isNotNull();
    return volume.getHostPath().getPath()
        + " "
        + volume.getHostPath().getType()
        + (Boolean.TRUE.equals(mount.getReadOnly()) ? " read-only" : " read-write");
  }

  private static <T> List<T> listOf(List<T> list) {
    return list == null ? List.of() : list;
  }
}
