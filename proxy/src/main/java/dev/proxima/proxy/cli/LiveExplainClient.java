package dev.proxima.proxy.cli;

import dev.proxima.model.ObjectKey;
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

/**
 * Asks a running proxy's explain endpoint (served by the proxy's ExplainServer) for its report.
 *
 * <p>{@link HttpURLConnection}, not the JDK's {@code java.net.http} client: the images' jlink
 * runtime holds only the modules the components need, and one loopback GET does not justify another
 * module in both images.
 */
final class LiveExplainClient {
  /** A loopback connection is there at once or not at all. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** Rendering happens on the proxy's HTTP event loop from a ready snapshot: seconds at most. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

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
   * @param service null for all
   * @throws Failure exit code 1 when no proxy answers, 2 when it refused the question
   */
  static String fetch(InetSocketAddress address, ObjectKey service, String format) throws Failure {
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
