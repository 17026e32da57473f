package dev.proxima.proxy.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.cli.KubeconfigException;
import dev.proxima.cli.LiveClusterState;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.state.StateFileException;
import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.TopologyFallback;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Print, per Service port, the addresses that lead to it and, for each kind of traffic"
          + " (pods and the node to the ClusterIP, external clients to a NodePort, load-balancer"
          + " IP or externalIP), the endpoints this node's proxy sends it to, or that it drops"
          + " it, and why.",
      "To see routing as it will be once the controller has written its hints: proxima-controller"
          + " plan --state FILE -o list | proxima-proxy explain --state - --node NAME",
      "With --live, ask the proxy running on this node instead: what its latest sync loaded, and"
          + " how its syncs went (inside its pod: kubectl exec -n proxima-system POD --"
          + " proxima-proxy explain --live)."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:explained",
      "1:the cluster of --kubeconfig could not be listed, or (--live) no proxy answered",
      "2:the state file, the kubeconfig, the node or the options are invalid"
    })
public final class ExplainCommand implements Callable<Integer> {
  public static final int DEFAULT_PORT = 10358;

  public enum Output {
    text,
    json
  }

  static final class Source {
    @ArgGroup(exclusive = false, multiplicity = "1")
    StateOptions offline;

    @ArgGroup(exclusive = false, multiplicity = "1")
    LiveExplainOptions live;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Mixin ServiceProxyNameOption serviceProxyName;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  Output output;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    return source.live != null ? live(source.live) : offline(source.offline);
  }

  private Integer offline(StateOptions state) {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    var notes = new ArrayList<String>();
    try {
      var plans = state.plans(notes, serviceProxyName.value);
      notes.forEach(note -> err.println("note: " + note));
      var missingSlices = state.missingSlicesWarning();
      long waiting = waitingForHints(plans);
      if (missingSlices != null) {
        err.println("warning: " + missingSlices);
      } else if (waiting > 0) {
        err.println(
            "note: "
                + (waiting == 1 ? "1 Service port asks" : waiting + " Service ports ask")
                + " for a trafficDistribution whose hints are not in the slices yet; to see"
                + " routing as it will be once the controller has written them: "
                + "proxima-controller plan "
                + (state.source.kubeconfig() != null
                    ? "--kubeconfig " + state.source.kubeconfig()
                    : "--state " + state.source.statePath())
                + " -o list | proxima-proxy explain --state - --node "
                + state.node);
      }
      out.print(output == Output.json ? ExplainReport.json(plans) : ExplainReport.text(plans));
      out.flush();
      return 0;
    } catch (StateFileException
        | KubeconfigException
        | LiveClusterState.UnreachableException failure) {
      err.println("error: " + failure.getMessage());
      return failure instanceof LiveClusterState.UnreachableException ? 1 : 2;
    }
  }

  /** Routed wider than asked because their slices lack the hints. */
  private static long waitingForHints(List<NodePlanner.FamilyPlan> plans) {
    return plans.stream()
        .flatMap(plan -> plan.ports().stream())
        .filter(
            planned ->
                planned.fallback() == TopologyFallback.INCOMPLETE_ZONE_HINTS
                    || planned.fallback() == TopologyFallback.INCOMPLETE_NODE_HINTS)
        .count();
  }

  private Integer live(LiveExplainOptions live) {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    if (spec.commandLine().getParseResult().hasMatchedOption("--service-proxy-name")) {
      err.println(
          "error: --service-proxy-name is for the offline explain; --live shows the Services the"
              + " running proxy takes");
      return 2;
    }
    try {
      var address = live.address(System.getenv("PROXIMA_EXPLAIN_BIND_ADDRESS"));
      out.print(fetch(address, live.serviceKey(), output.name()));
      out.flush();
      return 0;
    } catch (IllegalArgumentException | Failure failure) {
      err.println("error: " + failure.getMessage());
      return failure instanceof Failure answered ? answered.exitCode : 2;
    }
  }

  /** {@code explain --live}: ask the proxy running on this node instead of reading a state. */
  static final class LiveExplainOptions {
    @Option(
        names = "--live",
        required = true,
        description =
            "Ask the proxy running on this node (e.g. kubectl exec into its pod) for its current"
                + " plan and sync state, on its loopback explain port.")
    boolean live;

    @Option(
        names = "--service",
        paramLabel = "NAMESPACE/NAME",
        description = "Only this Service (with --live).")
    String service;

    @Option(
        names = "--explain-port",
        paramLabel = "PORT",
        description =
            "The port of the proxy's --explain-bind-address (default: the port of"
                + " $PROXIMA_EXPLAIN_BIND_ADDRESS, which the proxy's pod sets when it moves it, else "
                + ExplainCommand.DEFAULT_PORT
                + ").")
    Integer port;

    /**
     * The host and port of {@code PROXIMA_EXPLAIN_BIND_ADDRESS} when set (a {@code kubectl exec}
     * shell has the proxy container's environment), --explain-port over its port.
     */
    InetSocketAddress address(String environmentValue) {
      var host = "127.0.0.1";
      int envPort = ExplainCommand.DEFAULT_PORT;
      if (environmentValue != null && !environmentValue.isBlank()) {
        InetSocketAddress fromEnvironment;
        try {
          fromEnvironment = new BindAddressConverter().convert(environmentValue.strip());
        } catch (RuntimeException invalid) {
          throw new IllegalArgumentException(
              "PROXIMA_EXPLAIN_BIND_ADDRESS=" + environmentValue + " is not host:port");
        }
        if (!fromEnvironment.isUnresolved() && fromEnvironment.getAddress().isLoopbackAddress()) {
          host = fromEnvironment.getAddress().getHostAddress();
        }
        envPort = fromEnvironment.getPort();
      }
      int chosen = port != null ? port : envPort;
      if (chosen < 1 || chosen > 65535) {
        throw new IllegalArgumentException(
            port != null
                ? "--explain-port " + port + " is not a port (1-65535)"
                : "the proxy's explain port is off (PROXIMA_EXPLAIN_BIND_ADDRESS="
                    + environmentValue
                    + "); give --explain-port if it listens elsewhere");
      }
      return new InetSocketAddress(host, chosen);
    }

    ObjectKey serviceKey() {
      if (service == null) {
        return null;
      }
      try {
        return ObjectKey.parse(service);
      } catch (IllegalArgumentException invalid) {
        throw new IllegalArgumentException("--service takes NAMESPACE/NAME, not " + service);
      }
    }
  }

  /** A loopback connection is there at once or not at all. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** Rendering happens on the proxy's HTTP event loop from a ready snapshot: seconds at most. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

  private static final class Failure extends Exception {
    final int exitCode;

    Failure(String message, int exitCode) {
      super(message);
      this.exitCode = exitCode;
    }
  }

  /**
   * Asks the running proxy's explain endpoint; {@link HttpURLConnection}, not {@code
   * java.net.http}, which the images' jlink runtime does not hold. Failure's exit code: 1 when no
   * proxy answers, 2 when it refused the question.
   */
  private static String fetch(InetSocketAddress address, ObjectKey service, String format)
      throws Failure {
    var where = address.getHostString() + " port " + address.getPort();
    var host = address.getHostString();
    var query = "format=" + format;
    if (service != null) {
      query += "&service=" + URLEncoder.encode(service.toString(), StandardCharsets.UTF_8);
    }
    HttpURLConnection connection;
    try {
      var url =
          URI.create(
                  "http://"
                      + (host.contains(":") ? "[" + host + "]" : host)
                      + ":"
                      + address.getPort()
                      + "/explain?"
                      + query)
              .toURL();
      connection = (HttpURLConnection) url.openConnection(Proxy.NO_PROXY);
      connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      connection.setReadTimeout((int) ANSWER_TIMEOUT.toMillis());
      connection.setUseCaches(false);
      connection.connect();
    } catch (ConnectException | SocketTimeoutException refused) {
      throw new Failure(
          "no proxy answers on "
              + where
              + ": is `proxima-proxy run` running on this node (in this network namespace), with"
              + " --explain-bind-address on that port? (--explain-port asks another port)",
          1);
    } catch (IOException broken) {
      throw new Failure("asking the proxy on " + where + " failed: " + broken, 1);
    }
    try {
      int status = connection.getResponseCode();
      if (status == 200) {
        return read(connection.getInputStream());
      }
      var body = read(connection.getErrorStream()).strip();
      throw new Failure(
          "the proxy on " + where + " answered " + status + ": " + body, status == 400 ? 2 : 1);
    } catch (SocketTimeoutException slow) {
      throw new Failure(
          "the proxy on " + where + " did not answer within " + ANSWER_TIMEOUT.toSeconds() + " s",
          1);
    } catch (IOException broken) {
      throw new Failure("asking the proxy on " + where + " failed: " + broken, 1);
    } finally {
      connection.disconnect();
    }
  }

  private static String read(InputStream in) throws IOException {
    if (in == null) {
      return "";
    }
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
