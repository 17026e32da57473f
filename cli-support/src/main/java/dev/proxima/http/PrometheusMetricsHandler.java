package dev.proxima.http;

import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a registry the way client_java's own HTTP server does (content negotiation between the
 * text and OpenMetrics formats, gzip, {@code name[]} filters), by handing its scrape handler a
 * request and collecting the answer in memory.
 */
public final class PrometheusMetricsHandler implements ProbeHandler {
  private static final Logger log = LoggerFactory.getLogger(PrometheusMetricsHandler.class);

  private final PrometheusScrapeHandler scrape;

  public PrometheusMetricsHandler(PrometheusRegistry registry) {
    this.scrape = new PrometheusScrapeHandler(registry);
  }

  @Override
  public ProbeResponse handle(ProbeRequest request) {
    var exchange = new Exchange(request);
    try {
      scrape.handleRequest(exchange);
    } catch (IOException | RuntimeException failure) {
      exchange.failed(failure);
    }
    return exchange.response();
  }

  private static final class Exchange
      implements PrometheusHttpExchange, PrometheusHttpRequest, PrometheusHttpResponse {
    private final ProbeRequest request;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int status = 500;
    private ProbeResponse failure;

    Exchange(ProbeRequest request) {
      this.request = request;
    }

    ProbeResponse response() {
      return failure != null ? failure : new ProbeResponse(status, headers, body.toByteArray());
    }

    void failed(Exception cause) {
      log.atWarn().setCause(cause).log("Scraping metrics failed");
      failure = ProbeResponse.text(500, "scraping metrics failed: " + cause.getMessage() + "\n");
    }

    @Override
    public PrometheusHttpRequest getRequest() {
      return this;
    }

    @Override
    public PrometheusHttpResponse getResponse() {
      return this;
    }

    @Override
    public void handleException(IOException cause) {
      failed(cause);
    }

    @Override
    public void handleException(RuntimeException cause) {
      failed(cause);
    }

    @Override
    public void close() {}

    @Override
    public String getQueryString() {
      return request.query();
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
      var values = request.headers().apply(name);
      return Collections.enumeration(values);
    }

    @Override
    public String getMethod() {
      return request.method();
    }

    @Override
    public String getRequestPath() {
      return request.path();
    }

    @Override
    public void setHeader(String name, String value) {
      headers.put(name, value);
    }

    @Override
    public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
      status = statusCode;
      return body;
    }
  }
}
