package dev.proxima.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.controller.health.ProbeServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * endpoint_slice_controller_changes under both of upstream's names: without a suffix, and with
 * {@code _total} as kube-controller-manager emits it since 1.38.
 */
class ChangesCounterNamesTest {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ControllerMetrics metrics = new ControllerMetrics(registry);
  private ProbeServer server;

  @BeforeEach
  void start() throws Exception {
    server =
        ProbeServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new InetSocketAddress("127.0.0.1", 0),
            registry,
            metrics.streamedFamilies(),
            () -> true,
            () -> true);
    metrics.sliceWritten("success");
    metrics.sliceWritten("success");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> scrape(String accept, String query) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port("/metrics") + "/metrics" + query))
                .header("Accept", accept)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void thePrometheusTextFormatHasBothNames() throws Exception {
    var text = scrape("text/plain; version=0.0.4", "").body();

    assertThat(text)
        .contains("\nendpoint_slice_controller_changes{operation=\"update\"} 2")
        .contains("# TYPE endpoint_slice_controller_changes_total counter\n")
        .contains("\nendpoint_slice_controller_changes_total{operation=\"update\"} 2\n");
  }

  @Test
  void openMetricsHasBothNamesInFamiliesOfTheirOwn() throws Exception {
    var text = scrape("application/openmetrics-text; version=1.0.0", "").body();

    assertThat(text)
        .contains("# TYPE endpoint_slice_controller_changes unknown\n")
        .contains("# TYPE endpoint_slice_controller_changes_total unknown\n")
        .contains("\nendpoint_slice_controller_changes_total{operation=\"update\"} 2\n")
        .endsWith("# EOF\n");
  }

  @Test
  void theProtocolBufferFormatStillAnswers() throws Exception {
    var response = scrape("*/*", "?debug=prometheus-protobuf");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("endpoint_slice_controller_changes");
  }
}
