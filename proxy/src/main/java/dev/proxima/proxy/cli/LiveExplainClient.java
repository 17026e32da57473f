package dev.proxima.proxy.cli;

import dev.proxima.model.ObjectKey;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Asks a running proxy's explain endpoint (served by the proxy's ExplainServer) for its report. */
final class LiveExplainClient {
  /** A loopback connection is there at once or not at all. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** Rendering happens on the proxy's HTTP event loop from a ready snapshot: seconds at most. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

  /** The proxy could not be asked, or answered with an error. */
  static final class Failure extends Exception {
    private final int exitCode;

    Failure(String message, int exitCode) {
      super(message);
      this.exitCode = exitCode;
    }

    int exitCode() {
      return exitCode;
    }
  }

  private LiveExplainClient() {}

  /**
   * @param service one Service, or null for all
   * @param format json or text
   * @return the report, as the proxy rendered it
   * @throws Failure exit code 1 when no proxy answers, 2 when it refused the question
   */
  static String fetch(InetSocketAddress address, ObjectKey service, String format)
      throws Failure, InterruptedException {
    var where = address.getHostString() + " port " + address.getPort();
    var host =
        address.getHostString().contains(":")
            ? "[" + address.getHostString() + "]"
            : address.getHostString();
    var query = "format=" + format;
    if (service != null) {
      query += "&service=" + URLEncoder.encode(service.toString(), StandardCharsets.UTF_8);
    }
    var uri = URI.create("http://" + host + ":" + address.getPort() + "/explain?" + query);
    var client =
        HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            .proxy(HttpClient.Builder.NO_PROXY)
            .build();
    HttpResponse<String> response;
    try {
      response =
          client.send(
              HttpRequest.newBuilder(uri).timeout(ANSWER_TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (ConnectException | HttpConnectTimeoutException refused) {
      throw new Failure(
          "no proxy answers on "
              + where
              + ": is `proxima-proxy run` running on this node (in this network namespace), with"
              + " --explain-bind-address on that port? (--explain-port asks another port)",
          1);
    } catch (HttpTimeoutException slow) {
      throw new Failure(
          "the proxy on " + where + " did not answer within " + ANSWER_TIMEOUT.toSeconds() + " s",
          1);
    } catch (IOException broken) {
      throw new Failure("asking the proxy on " + where + " failed: " + broken, 1);
    }
    if (response.statusCode() == 200) {
      return response.body();
    }
    var body = response.body() == null ? "" : response.body().strip();
    throw new Failure(
        "the proxy on " + where + " answered " + response.statusCode() + ": " + body,
        response.statusCode() == 400 ? 2 : 1);
  }
}
