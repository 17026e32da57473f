package dev.proxima.e2e.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./demo.sh --serve} as its own process, explored with the real kubectl the way docs/demo.md
 * tells an operator to: every command the page lists, with its output checked, and the controller
 * and the proxies reacting to the changes. The transcript of every command and its output is
 * printed, and kept in target/demo-serve-kubectl.txt.
 */
class DemoServeKubectlIT {
  private static final Path OUTPUT = Commands.ROOT.resolve("proxima-demo-out");
  private static final Path KUBECONFIG = OUTPUT.resolve("kubeconfig");
  private static final Duration REACTION = Duration.ofSeconds(30);

  @TempDir Path directory;

  private Process demo;
  private Path demoLog;
  private final StringBuilder transcript = new StringBuilder();

  @BeforeEach
  void startTheDemoServing() throws Exception {
    var kubectl = Path.of("/usr/bin/kubectl");
    boolean present = Files.isExecutable(kubectl) || onPath("kubectl");
    if (!present && "true".equals(System.getenv("PROXIMA_E2E_REQUIRED"))) {
      throw new AssertionError("kubectl is not installed and PROXIMA_E2E_REQUIRED=true");
    }
    Assumptions.assumeTrue(
        present,
        "kubectl is not installed; ./test.sh installs it (Debian's kubernetes-client) as root");
    Files.deleteIfExists(KUBECONFIG);
    demoLog = directory.resolve("demo.log");
    demo =
        Commands.start(
            List.of("./demo.sh", "--serve"),
            Commands.ROOT,
            Map.of("DEMO_SKIP_BUILD", "1"),
            demoLog);
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(200))
        .failFast("the demo exited:\n" + log(), () -> !demo.isAlive())
        .until(() -> log().contains("== Serving"));
  }

  @AfterEach
  void stopTheDemo() throws Exception {
    Commands.stop(demo);
    var text = transcript + "\n== demo output ==\n" + (demoLog == null ? "" : log());
    Files.writeString(Path.of("target/demo-serve-kubectl.txt"), text);
    System.out.println(text);
  }

  @Test
  void kubectlReadsChangesAndDeletesAndTheControllerAndProxiesReact() throws Exception {
    assertThat(log())
        .contains("export KUBECONFIG=proxima-demo-out/kubeconfig")
        .contains("kubectl get endpointslices -o wide");
    assertThat(KUBECONFIG).exists();

    // Reading: get and describe of nodes, services, endpointslices and events.
    assertThat(ok("get", "nodes", "-o", "wide"))
        .contains("INTERNAL-IP")
        .containsPattern("node-b2 +Ready .*192\\.168\\.0\\.14 +zone-b");
    assertThat(ok("get", "nodes", "-o", "yaml")).contains("topology.kubernetes.io/zone: zone-c");
    assertThat(ok("describe", "node", "node-b2"))
        .contains("topology.kubernetes.io/zone=zone-b")
        .contains("InternalIP:  192.168.0.14");
    assertThat(ok("get", "services", "-A", "-o", "wide"))
        .containsPattern("demo +checkout +ClusterIP +10\\.96\\.0\\.20 .*PreferSameZone")
        .containsPattern("demo +dns +ClusterIP +10\\.96\\.0\\.10 +<none> +53/UDP");
    assertThat(ok("get", "services", "-A", "-o", "yaml"))
        .contains("trafficDistribution: PreferSameNode");
    assertThat(ok("describe", "service", "reports"))
        .contains("IP:                10.96.0.50")
        .contains("UnsupportedTrafficDistribution");
    // Events are those of the described object only (the field selector is honoured).
    assertThat(ok("describe", "service", "checkout"))
        .contains("Endpoints:         10.244.")
        .doesNotContain("UnsupportedTrafficDistribution");
    assertThat(ok("get", "endpointslices", "-A", "-o", "wide"))
        .containsPattern("dns-x7k2p +IPv4 +53 .*10\\.244\\.3\\.10→node-b2\\+zone-b");
    assertThat(ok("get", "endpointslices", "-o", "yaml")).contains("forNodes:");
    assertThat(ok("describe", "endpointslice", "dns-x7k2p"))
        .contains("kubernetes.io/service-name=dns")
        .contains("NodeName:   node-b2");
    assertThat(ok("get", "events", "-A"))
        .containsPattern("demo +\\S+ +Warning +UnsupportedTrafficDistribution +service/reports");
    assertThat(ok("get", "events", "-A", "-o", "wide")).contains("proxima-controller");
    assertThat(ok("get", "events", "-o", "yaml")).contains("reason: TopologyAwareHintsEnabled");
    assertThat(ok("describe", "events")).contains("Reason:").contains("Involved Object:");

    // apply -f of a new Service with its EndpointSlice: each node's proxy routes it.
    var manifest = directory.resolve("web.yaml");
    Files.writeString(manifest, webManifest(null, ""));
    assertThat(ok("apply", "-f", manifest.toString()))
        .contains("service/web created")
        .contains("endpointslice.discovery.k8s.io/web-1 created");
    assertThat(ok("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"))
        .startsWith("10.96.");
    awaitReport("node-a1", "Cluster policy: 10.244.0.70:8080, 10.244.2.70:8080");

    // apply -f of the same file after editing it: PreferSameNode and a second port.
    Files.writeString(manifest, webManifest("PreferSameNode", "  - name: admin\n    port: 9090\n"));
    assertThat(ok("apply", "-f", manifest.toString())).contains("service/web configured");
    assertThat(ok("get", "service", "web", "-o", "jsonpath={.spec.ports[*].name}"))
        .isEqualTo("http admin");
    awaitSlice("web-1", "jsonpath={.endpoints[*].hints.forNodes[*].name}", "node-a1 node-b1");
    awaitReport(
        "node-a1",
        "demo/web port http/TCP  trafficDistribution=PreferSameNode  topology=PreferSameNode\n"
            + "  addresses:      clusterIP ");
    awaitReport(
        "node-a1", "  Cluster policy: 10.244.0.70:8080 (filtered by topology: PreferSameNode)\n");
    assertThat(log())
        .contains("[slices] demo/web-1 hints changed:")
        .contains("[node-a1] routing changed");

    // patch --type=merge: checkout switches to PreferSameNode and gets node hints.
    assertThat(
            ok(
                "patch",
                "service",
                "checkout",
                "--type=merge",
                "-p",
                "{\"spec\":{\"trafficDistribution\":\"PreferSameNode\"}}"))
        .contains("service/checkout patched");
    awaitReport(
        "node-b1",
        "demo/checkout port tcp-8080/TCP  trafficDistribution=PreferSameNode  topology=PreferSameNode");
    assertThat(
            ok(
                "get",
                "endpointslice",
                "checkout-4fj9q",
                "-o",
                "jsonpath={.endpoints[0].hints.forNodes[0].name}"))
        .isEqualTo("node-a1");

    // patch --type=json: catalog loses its trafficDistribution, so its hints go.
    assertThat(
            ok(
                "patch",
                "service",
                "catalog",
                "--type=json",
                "-p",
                "[{\"op\":\"remove\",\"path\":\"/spec/trafficDistribution\"}]"))
        .contains("service/catalog patched");
    awaitSlice("catalog-p2m8d", "jsonpath={.endpoints[*].hints}", "");

    // label and annotate.
    assertThat(ok("label", "service", "web", "tier=frontend")).contains("service/web labeled");
    assertThat(ok("get", "service", "web", "--show-labels")).contains("app=web,tier=frontend");
    assertThat(ok("annotate", "service", "web", "example.com/owner=team-a"))
        .contains("service/web annotated");
    assertThat(
            ok(
                "get",
                "service",
                "web",
                "-o",
                "jsonpath={.metadata.annotations.example\\.com/owner}"))
        .isEqualTo("team-a");
    assertThat(ok("label", "service", "web", "tier-")).contains("service/web unlabeled");

    // edit (a strategic merge patch) and replace -f (a PUT that leaves the ClusterIP out).
    var clusterIp = ok("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}");
    assertThat(
            kubectlWith(
                    Map.of("EDITOR", "sed -i s/PreferSameNode/PreferSameZone/"),
                    "edit",
                    "service",
                    "web")
                .output())
        .contains("service/web edited");
    assertThat(ok("get", "service", "web", "-o", "jsonpath={.spec.trafficDistribution}"))
        .isEqualTo("PreferSameZone");
    // replace copies each object's current resourceVersion into its PUT, so a write by the
    // controller in between fails it (409 on a real API server): let the hints settle first,
    // and replace with the Service as it now is.
    awaitSlice("web-1", "jsonpath={.endpoints[*].hints.forNodes}", "");
    Files.writeString(manifest, webManifest("PreferSameZone", "  - name: admin\n    port: 9090\n"));
    assertThat(ok("replace", "-f", manifest.toString())).contains("service/web replaced");
    assertThat(ok("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"))
        .isEqualTo(clusterIp);
    assertThat(ok("get", "all")).contains("service/web").contains("service/dns");

    // What the embedded server does not do is refused with a message naming the alternative.
    assertThat(failed("apply", "--server-side", "-f", manifest.toString()))
        .contains("does not support server-side apply");
    assertThat(failed("diff", "-f", manifest.toString()))
        .contains("does not support server-side dry-run");
    assertThat(failed("create", "service", "clusterip", "api", "--tcp=80:8080"))
        .contains("use kubectl apply -f or kubectl create -f");

    // delete: the Service and its slice go, and so do the nodes' rules for it.
    assertThat(ok("delete", "-f", manifest.toString()))
        .contains("service \"web\" deleted")
        .contains("endpointslice.discovery.k8s.io \"web-1\" deleted");
    var missing = kubectl("get", "service", "web");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.output()).contains("NotFound");
    await()
        .atMost(REACTION)
        .untilAsserted(
            () ->
                assertThat(Files.readString(OUTPUT.resolve("node-a1.txt")))
                    .doesNotContain("demo/web"));
    assertThat(ok("create", "-f", manifest.toString())).contains("service/web created");
    awaitReport("node-a1", "demo/web port http/TCP");

    // Ctrl-C stops it.
    new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).start().waitFor();
    assertThat(demo.waitFor(60, TimeUnit.SECONDS)).as("the demo stops on SIGINT").isTrue();
    assertThat(log()).contains("Stopping the demo");
  }

  @Test
  void whatKubectlDoesInAnOperatorsFirstHourWorksOrIsRefusedClearly() throws Exception {
    // What every API server has: health endpoints, namespaces, the kubernetes Service.
    assertThat(ok("get", "--raw", "/healthz")).isEqualTo("ok");
    assertThat(ok("get", "--raw", "/readyz")).isEqualTo("ok");
    assertThat(ok("get", "--raw", "/livez")).isEqualTo("ok");
    assertThat(ok("get", "ns"))
        .containsPattern("(?m)^default ")
        .containsPattern("(?m)^kube-system ")
        .containsPattern("(?m)^demo ");
    assertThat(ok("get", "service", "kubernetes", "-n", "default"))
        .containsPattern("kubernetes +ClusterIP +10\\.96\\.0\\.1 +<none> +443/TCP");

    // explain lists the served kinds' fields and types, and says where their meaning is told.
    assertThat(ok("explain", "service.spec.trafficDistribution"))
        .contains("FIELD: trafficDistribution <string>")
        .contains("Not documented by the demo API server: run kubectl explain against a real");
    assertThat(ok("explain", "endpointslices.endpoints"))
        .contains("GROUP:      discovery.k8s.io")
        .contains("hints\t<EndpointHints>")
        .contains("zone\t<string>");
    assertThat(ok("explain", "nodes")).contains("The Proxima demo API server lists this kind's");
    assertThat(ok("explain", "namespace.metadata.labels")).contains("<map[string]string>");
    assertThat(failed("explain", "service.spec.noSuchField"))
        .contains("field \"noSuchField\" does not exist");

    // Set-based label selectors select, on get and on delete.
    assertThat(ok("get", "endpointslices", "-l", "kubernetes.io/service-name in (dns,search)"))
        .contains("dns-x7k2p")
        .contains("search-h5t6w")
        .doesNotContain("checkout-");
    assertThat(ok("get", "endpointslices", "-l", "kubernetes.io/service-name notin (dns)"))
        .contains("checkout-")
        .doesNotContain("dns-x7k2p");
    assertThat(kubectl("get", "endpointslices", "-l", "!kubernetes.io/service-name").output())
        .contains("No resources found");

    // apply -f of what kubectl get -o yaml exports: one List.
    var export = directory.resolve("export.yaml");
    Files.writeString(export, ok("get", "services,endpointslices", "-o", "yaml"));
    assertThat(ok("apply", "-f", export.toString()))
        .contains("service/dns configured")
        .contains("endpointslice.discovery.k8s.io/dns-x7k2p configured");

    assertThat(ok("delete", "endpointslices", "-l", "kubernetes.io/service-name in (search)"))
        .contains("\"search-h5t6w\" deleted");
    assertThat(ok("get", "endpointslices")).contains("dns-x7k2p").doesNotContain("search-h5t6w");

    // A stale write is a 409 Conflict naming the object, as on a real API server.
    var stale = directory.resolve("dns.yaml");
    Files.writeString(stale, ok("get", "service", "dns", "-o", "yaml"));
    ok("annotate", "service", "dns", "example.com/touched=yes");
    assertThat(failed("replace", "-f", stale.toString()))
        .contains("Error from server (Conflict)")
        .contains(
            "Operation cannot be fulfilled on services \"dns\": the object has been modified;"
                + " please apply your changes to the latest version and try again");

    // One view of every node's proxy, read through the API server's pod proxy.
    assertThat(ok("get", "pods", "-n", "proxima-system")).contains("proxima-proxy-node-a1");
    var out = new java.io.StringWriter();
    int exit =
        dev.proxima.proxy.cli.ProxyMain.commandLine()
            .setOut(new java.io.PrintWriter(out))
            .execute("status", "--kubeconfig", KUBECONFIG.toString());
    transcript.append("$ proxima-proxy status\n").append(out).append('\n');
    assertThat(exit).as(out.toString()).isZero();
    assertThat(out.toString())
        .containsPattern(
            "node-a1 +zone-a +proxima-proxy-node-a1 +nftables +\\S+ +ok +\\d+[smh] ago +0 +0 +\\d+ +-")
        .containsPattern("node-c2 +zone-c +proxima-proxy-node-c2 +nftables")
        .contains("6 of 6 nodes have a healthy proxy.");

    // A watch over plain HTTP is refused with what to do instead.
    assertThat(failed("get", "services", "-w"))
        .contains("kubectl get -w and --watch are not supported");
  }

  private static String webManifest(String trafficDistribution, String extraPorts) {
    return """
        apiVersion: v1
        kind: Service
        metadata:
          name: web
          labels:
            app: web
        spec:
          selector:
            app: web
        %s  ports:
          - name: http
            port: 80
            targetPort: 8080
        %s---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata:
          name: web-1
          labels:
            kubernetes.io/service-name: web
        addressType: IPv4
        ports:
        - name: http
          port: 8080
          protocol: TCP
        endpoints:
        - addresses: ["10.244.0.70"]
          nodeName: node-a1
          zone: zone-a
          conditions: {ready: true}
        - addresses: ["10.244.2.70"]
          nodeName: node-b1
          zone: zone-b
          conditions: {ready: true}
        """
        .formatted(
            trafficDistribution == null
                ? ""
                : "  trafficDistribution: " + trafficDistribution + "\n",
            extraPorts);
  }

  /** Waits until {@code kubectl get endpointslice NAME -o jsonpath=...} prints {@code value}. */
  private void awaitSlice(String name, String jsonpath, String value) {
    await()
        .atMost(REACTION)
        .untilAsserted(
            () -> assertThat(ok("get", "endpointslice", name, "-o", jsonpath)).isEqualTo(value));
  }

  private void awaitReport(String node, String text) {
    await()
        .atMost(REACTION)
        .untilAsserted(
            () -> assertThat(Files.readString(OUTPUT.resolve(node + ".txt"))).contains(text));
  }

  /** Runs kubectl, asserting it exits 0; returns what it printed. */
  private String ok(String... arguments) throws Exception {
    var result = kubectl(arguments);
    assertThat(result.exitCode())
        .as("kubectl %s:%n%s", String.join(" ", arguments), result.output())
        .isZero();
    return result.output();
  }

  /** Runs kubectl, asserting it fails; returns what it printed. */
  private String failed(String... arguments) throws Exception {
    var result = kubectl(arguments);
    assertThat(result.exitCode())
        .as("kubectl %s:%n%s", String.join(" ", arguments), result.output())
        .isNotZero();
    return result.output();
  }

  private Commands.Result kubectl(String... arguments) throws Exception {
    return kubectlWith(Map.of(), arguments);
  }

  private Commands.Result kubectlWith(Map<String, String> environment, String... arguments)
      throws Exception {
    var command = new ArrayList<String>();
    command.add("kubectl");
    command.addAll(List.of(arguments));
    var output = directory.resolve("kubectl.out");
    var result =
        Commands.run(
            command, Commands.ROOT, withKubeconfig(environment), output, Duration.ofSeconds(60));
    transcript.append("$ ");
    environment.forEach(
        (name, value) -> transcript.append(name).append("='").append(value).append("' "));
    transcript
        .append("kubectl ")
        .append(
            String.join(
                " ", java.util.Arrays.stream(arguments).map(DemoServeKubectlIT::quoted).toList()))
        .append('\n')
        .append(result.output())
        .append(result.output().endsWith("\n") ? "" : "\n")
        .append(result.exitCode() == 0 ? "" : "(exit " + result.exitCode() + ")\n");
    return result;
  }

  /** An argument as one would type it into a shell. */
  private static String quoted(String argument) {
    return argument.matches("[A-Za-z0-9_./=:,+-]*") ? argument : "'" + argument + "'";
  }

  private static Map<String, String> withKubeconfig(Map<String, String> environment) {
    var all = new java.util.HashMap<>(environment);
    all.put("KUBECONFIG", KUBECONFIG.toString());
    return all;
  }

  private String log() throws IOException {
    return Files.readString(demoLog, StandardCharsets.UTF_8);
  }

  private static boolean onPath(String tool) {
    for (var entry : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, tool))) {
        return true;
      }
    }
    return false;
  }
}
