package dev.proxima.proxy.cli;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.KubeconfigOption;
import dev.proxima.cli.LogFormat;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.status.MetricsText;
import dev.proxima.proxy.status.ProxyStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "List every node's proxy: mode, version, health, last sync, sync failures, pending changes,"
          + " Service ports, rules (iptables mode) and the share of connections kept on the node"
          + " and in its zone.",
      "Reads each proxy pod's /metrics and /healthz through the API server's pod proxy (needs"
          + " get on pods/proxy in the proxies' namespace; the proxies are not changed)."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:every node has a healthy proxy",
      "1:the cluster could not be listed, or a node has no healthy proxy",
      "2:the kubeconfig or the options are invalid"
    })
public final class StatusCommand implements Callable<Integer> {
  /** Each pod is asked in turn. */
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(10);

  /** A metrics page of a proxy is some kilobytes; anything far larger is not one. */
  private static final int MAX_ANSWER = 4 << 20;

  @Mixin KubeconfigOption kubeconfig;

  @Option(
      names = {"-n", "--namespace"},
      defaultValue = "proxima-system",
      description = "The proxies' namespace (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = {"-l", "--selector"},
      defaultValue = "app.kubernetes.io/name=proxima-proxy",
      description = "The proxy pods' labels (default: ${DEFAULT-VALUE}).")
  String selector;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  ExplainCommand.Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    LogFormat.warningsOnly();
    // The HTTP client's event-loop watchdog warns about a slow first request; not the reader's
    // concern in a one-shot command.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.vertx"))
        .setLevel(ch.qos.logback.classic.Level.ERROR);
    List<ProxyStatus> statuses;
    try (var client = new KubernetesClientBuilder().withConfig(kubeconfig.clientConfig()).build()) {
      statuses = gather(client);
    } catch (KubeconfigException invalid) {
      err.println("error: " + invalid.getMessage());
      return 2;
    } catch (KubernetesClientException unreachable) {
      err.println(
          "error: cannot list nodes and proxy pods: " + ApiServerFailures.cause(unreachable));
      return 1;
    }
    var now = Clock.systemUTC().instant();
    out.print(
        output == ExplainCommand.Output.json
            ? dev.proxima.proxy.plan.ExplainReport.write(
                statuses.stream().map(StatusCommand::json).toList())
            : ProxyStatus.table(statuses, now));
    out.flush();
    return statuses.stream().allMatch(s -> Boolean.TRUE.equals(s.healthy())) ? 0 : 1;
  }

  private List<ProxyStatus> gather(KubernetesClient client) {
    var nodes = new ArrayList<>(client.nodes().list().getItems());
    nodes.sort(Comparator.comparing(node -> node.getMetadata().getName()));
    var pods = new LinkedHashMap<String, Pod>();
    for (var pod :
        client.pods().inNamespace(namespace).withLabelSelector(selector).list().getItems()) {
      if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
        pods.put(pod.getSpec().getNodeName(), pod);
      }
    }
    var statuses = new ArrayList<ProxyStatus>();
    for (Node node : nodes) {
      var name = node.getMetadata().getName();
      var zone = NodePlanner.zoneOf(node);
      var pod = pods.get(name);
      if (pod == null) {
        statuses.add(ProxyStatus.unreadable(name, zone, null, "no proxy pod"));
        continue;
      }
      statuses.add(status(client, name, zone, pod));
    }
    return statuses;
  }

  private ProxyStatus status(KubernetesClient client, String node, String zone, Pod pod) {
    var podName = pod.getMetadata().getName();
    var metrics = ask(client, pod, port(pod, "metrics", 10249), "metrics");
    if (metrics.code() != 200) {
      return ProxyStatus.unreadable(
          node,
          zone,
          podName,
          "metrics unreadable: " + metrics.body().lines().findFirst().orElse(""));
    }
    var health = ask(client, pod, port(pod, "healthz", 10256), "healthz");
    Boolean healthy =
        health.code() == 200 ? Boolean.TRUE : health.code() == 503 ? Boolean.FALSE : null;
    return ProxyStatus.of(node, zone, podName, MetricsText.parse(metrics.body()), healthy);
  }

  private record Answer(int code, String body) {}

  private Answer ask(KubernetesClient client, Pod pod, int port, String path) {
    var url =
        String.format(
            "%s/api/v1/namespaces/%s/pods/%s:%d/proxy/%s",
            client.getMasterUrl().toString().replaceAll("/+$", ""),
            namespace,
            pod.getMetadata().getName(),
            port,
            path);
    var http = client.getHttpClient();
    try {
      var response =
          http.sendAsync(http.newHttpRequestBuilder().uri(url).build(), String.class)
              .get(ASK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      var body = response.body() == null ? "" : response.body();
      if (body.length() > MAX_ANSWER) {
        return new Answer(0, "answer over " + (MAX_ANSWER >> 20) + " MB");
      }
      return new Answer(
          response.code(),
          response.code() == 200 || response.code() == 503 ? body : "HTTP " + response.code());
    } catch (TimeoutException slow) {
      return new Answer(0, "no answer within " + ASK_TIMEOUT.toSeconds() + " s");
    } catch (ExecutionException failed) {
      return new Answer(0, ApiServerFailures.cause(failed.getCause()));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return new Answer(0, "interrupted");
    }
  }

  private static int port(Pod pod, String name, int fallback) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return fallback;
    }
    return pod.getSpec().getContainers().stream()
        .filter(c -> c.getPorts() != null)
        .flatMap(c -> c.getPorts().stream())
        .filter(p -> name.equals(p.getName()) && p.getContainerPort() != null)
        .map(p -> p.getContainerPort())
        .findFirst()
        .orElse(fallback);
  }

  private static Map<String, Object> json(ProxyStatus status) {
    var row = new LinkedHashMap<String, Object>();
    row.put("node", status.node());
    row.put("zone", status.zone());
    row.put("pod", status.pod());
    row.put("problem", status.problem());
    row.put("mode", status.mode());
    row.put("version", status.version());
    row.put("lastSync", status.lastSync() == null ? null : status.lastSync().toString());
    row.put("healthy", status.healthy());
    row.put("syncFailures", status.failures());
    row.put("pendingChanges", status.pendingChanges());
    row.put("servicePorts", status.servicePorts());
    row.put("rules", status.rules() < 0 ? null : status.rules());
    row.put("connections", status.connections());
    row.put("onNode", status.onNode());
    row.put("inZone", status.inZone());
    return row;
  }
}
