package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The pods/proxy subresource ({@code GET /api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH}), as the
 * API server forwards a request to a pod's port. In the demo the only pods are the proxies running
 * in this JVM, on loopback, so only loopback pod IPs are reached; anything else is refused.
 */
final class PodProxy {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PATH =
      Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/:]+)(?::([^/]+))?/proxy(/.*)?$");
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private PodProxy() {}

  /**
   * The pod's answer when {@code path} is a pod proxy path, empty otherwise.
   *
   * @param storedPod the stored Pod at an object path, as the mock answers it
   */
  static Optional<MockResponse> forward(
      String path, String query, Function<String, MockResponse> storedPod)
      throws JsonProcessingException {
    var matcher = PATH.matcher(path);
    if (!matcher.matches()) {
      return Optional.empty();
    }
    var stored =
        storedPod.apply("/api/v1/namespaces/" + matcher.group(1) + "/pods/" + matcher.group(2));
    if (stored.code() != 200) {
      return Optional.of(stored);
    }
    var pod = JSON.readTree(KubectlDispatcher.text(stored.getBody()));
    var ip = pod.path("status").path("podIP").asText("");
    int port = port(pod, matcher.group(3));
    if (ip.isEmpty() || port <= 0 || !loopback(ip)) {
      return Optional.of(
          KubectlDispatcher.status(
              503,
              "ServiceUnavailable",
              "the demo's API server proxies only to the demo's own proxies (a loopback pod IP"
                  + " and a declared port)"));
    }
    var rest = matcher.group(4) == null ? "/" : matcher.group(4);
    return Optional.of(
        get("http://" + ip + ":" + port + rest + (query.isEmpty() ? "" : "?" + query)));
  }

  private static int port(JsonNode pod, String asked) {
    for (var container : pod.path("spec").path("containers")) {
      for (var port : container.path("ports")) {
        if (asked == null
            || asked.equals(port.path("name").asText())
            || asked.equals(port.path("containerPort").asText())) {
          return port.path("containerPort").asInt();
        }
      }
    }
    try {
      return asked == null ? -1 : Integer.parseInt(asked);
    } catch (NumberFormatException unknownName) {
      return -1;
    }
  }

  private static boolean loopback(String ip) {
    try {
      return InetAddress.getByName(ip).isLoopbackAddress();
    } catch (IOException notAnAddress) {
      return false;
    }
  }

  private static MockResponse get(String url) {
    try {
      var connection = (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
      connection.setConnectTimeout((int) TIMEOUT.toMillis());
      connection.setReadTimeout((int) TIMEOUT.toMillis());
      try {
        int code = connection.getResponseCode();
        var body = read(code < 400 ? connection.getInputStream() : connection.getErrorStream());
        var type = connection.getContentType();
        return new MockResponse()
            .setResponseCode(code)
            .setHeader("Content-Type", type == null ? "text/plain" : type)
            .setBody(body);
      } finally {
        connection.disconnect();
      }
    } catch (IOException unreachable) {
      return KubectlDispatcher.status(
          503, "ServiceUnavailable", "error trying to reach the pod: " + unreachable.getMessage());
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
