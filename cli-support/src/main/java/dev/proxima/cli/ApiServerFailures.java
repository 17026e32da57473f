package dev.proxima.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;

/**
 * Turns a failed request to the API server into one line an operator can act on: the URL and the
 * cause, with 401 and 403 named as such. The stack trace goes to DEBUG only, because an unreachable
 * API server fails the same way on every retry.
 */
public final class ApiServerFailures {
  private ApiServerFailures() {}

  /**
   * An informer exception handler that logs one WARN per failed list or watch and keeps retrying
   * (fabric8 backs off between attempts). fabric8's own line for the same failure, with its stack
   * trace, logback.xml keeps out.
   *
   * @param url what the informer lists and watches, for the log line
   */
  public static ExceptionHandler retryingInformer(Logger log, String url) {
    return (started, failure) -> {
      log.atWarn()
          .addKeyValue("url", url)
          .addKeyValue("cause", cause(failure))
          .log(
              started
                  ? "Watch of the API server failed; retrying"
                  : "Cannot list from the API server; retrying");
      log.atDebug().setCause(failure).addKeyValue("url", url).log("Failure in detail");
      return true;
    };
  }

  /**
   * The HTTP status the API server answered with, wherever it sits among the failure's causes
   * (fabric8 wraps a failed list in further exceptions); 0 when the server gave none.
   */
  public static int statusCode(Throwable failure) {
    for (var current = failure; current != null; current = current.getCause()) {
      if (current instanceof KubernetesClientException api && api.getCode() > 0) {
        return api.getCode();
      }
      if (current.getCause() == current) {
        break;
      }
    }
    return 0;
  }

  /** The cause of a failure in a few words, from the innermost exception that says something. */
  public static String cause(Throwable failure) {
    for (var current = failure; current != null; current = current.getCause()) {
      if (current instanceof KubernetesClientException api && api.getCode() > 0) {
        return httpStatus(api);
      }
      // By name: the JDK's HttpTimeoutException lives in a module the images leave out, and a
      // connect timeout from Netty is a ConnectException that must not read "connection refused".
      if (current instanceof SocketTimeoutException
          || current instanceof TimeoutException
          || current.getClass().getSimpleName().endsWith("TimeoutException")) {
        return "timed out";
      }
      if (current instanceof UnknownHostException) {
        return "unknown host " + current.getMessage();
      }
      if (current instanceof ConnectException) {
        return "connection refused (" + current.getMessage() + ")";
      }
      if (current instanceof NoRouteToHostException) {
        return "no route to host (" + current.getMessage() + ")";
      }
      if (current instanceof SSLException) {
        return "TLS failed: " + current.getMessage();
      }
      if (current.getCause() == null || current.getCause() == current) {
        return current.getClass().getSimpleName()
            + (current.getMessage() == null ? "" : ": " + firstLine(current.getMessage()));
      }
    }
    return "unknown";
  }

  private static String httpStatus(KubernetesClientException api) {
    var status = api.getStatus();
    var message = status == null || status.getMessage() == null ? "" : ": " + status.getMessage();
    return switch (api.getCode()) {
      case 401 -> "401 Unauthorized: the API server does not accept the credentials" + message;
      case 403 -> "403 Forbidden: the credentials may not do this (check RBAC)" + message;
      default -> "HTTP " + api.getCode() + message;
    };
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
