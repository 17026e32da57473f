package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ApiServerFailuresTest {
  private static KubernetesClientException status(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Test
  void namesRefusedCredentialsAndMissingPermissions() {
    assertThat(ApiServerFailures.cause(new CompletionException(status(401, "Unauthorized"))))
        .isEqualTo(
            "401 Unauthorized: the API server does not accept the credentials: Unauthorized");
    assertThat(ApiServerFailures.cause(status(403, "nodes is forbidden")))
        .isEqualTo(
            "403 Forbidden: the credentials may not do this (check RBAC): nodes is forbidden");
    assertThat(ApiServerFailures.cause(status(500, "boom"))).isEqualTo("HTTP 500: boom");
  }

  @Test
  void findsTheApiServersStatusAlsoWhenTheClientWrappedIt() {
    var wrapped =
        new KubernetesClientException(
            "list failed", new CompletionException(status(404, "the server could not find it")));

    assertThat(ApiServerFailures.statusCode(wrapped)).isEqualTo(404);
    assertThat(ApiServerFailures.statusCode(status(403, "forbidden"))).isEqualTo(403);
    assertThat(ApiServerFailures.statusCode(new ConnectException("refused"))).isZero();
  }

  @Test
  void namesConnectionFailuresInAFewWords() {
    assertThat(
            ApiServerFailures.cause(
                new KubernetesClientException(
                    "failed", new ConnectException("Connection refused: /127.0.0.1:1"))))
        .isEqualTo("connection refused (Connection refused: /127.0.0.1:1)");
    assertThat(
            ApiServerFailures.cause(
                new CompletionException(new UnknownHostException("kubernetes.default.svc"))))
        .isEqualTo("unknown host kubernetes.default.svc");
    assertThat(ApiServerFailures.cause(new IllegalStateException("odd\nsecond line")))
        .isEqualTo("IllegalStateException: odd");
  }

  /** Netty's connect timeout, as fabric8's Vert.x client reports it: a ConnectException. */
  private static final class ConnectTimeoutException extends ConnectException {
    ConnectTimeoutException(String message) {
      super(message);
    }
  }

  @Test
  void namesTimeoutsAsTimeoutsAlsoWhenTheyAreConnectExceptions() {
    assertThat(
            ApiServerFailures.cause(
                new KubernetesClientException(
                    "failed", new ConnectTimeoutException("connection timed out: /10.0.0.1:443"))))
        .isEqualTo("timed out");
    assertThat(ApiServerFailures.cause(new java.util.concurrent.TimeoutException()))
        .isEqualTo("timed out");
  }
}
