package dev.proxima.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class PrometheusMetricsHandlerTest {
  private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0";

  /** Series whose label values need every escape the formats have, and many plain ones. */
  private static final class Streamed implements StreamedFamily {
    private final int plain;

    Streamed(int plain) {
      this.plain = plain;
    }

    private List<String[]> series() {
      var series = new ArrayList<String[]>();
      series.add(new String[] {"a\"quote", "back\\slash", "5"});
      series.add(new String[] {"new\nline", "ünïcode", "0"});
      for (int i = 0; i < plain; i++) {
        series.add(new String[] {"ns-" + i, "svc-" + i, String.valueOf(i * 1000L)});
      }
      return series;
    }

    @Override
    public String name() {
      return "test_streamed_connections";
    }

    @Override
    public void write(SeriesWriter out) throws IOException {
      out.counter(name(), HELP);
      for (var s : series()) {
        out.sample(name() + "_total", Long.parseLong(s[2]), "namespace", s[0], "service", s[1]);
      }
    }

    @Override
    public MetricSnapshot snapshot() {
      var family = CounterSnapshot.builder().name(name()).help(HELP);
      for (var s : series()) {
        family.dataPoint(
            CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of("namespace", s[0], "service", s[1]))
                .value(Long.parseLong(s[2]))
                .build());
      }
      return family.build();
    }
  }

  private static final String HELP = "Connections \"counted\" per C:\\ path\nsecond line";

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Streamed streamed = new Streamed(3);

  PrometheusMetricsHandlerTest() {
    Counter.builder().name("test_registry_requests").help("requests").register(registry).inc(2);
  }

  private static ProbeRequest get(String query, Map<String, List<String>> headers) {
    var lower = new LinkedHashMap<String, List<String>>();
    headers.forEach((name, values) -> lower.put(name.toLowerCase(), values));
    return new ProbeRequest(
        "GET", "/metrics", query, name -> lower.getOrDefault(name.toLowerCase(), List.of()));
  }

  private static String body(ProbeResponse response) throws IOException {
    var out = new ByteArrayOutputStream();
    if (response.stream() == null) {
      out.write(response.body());
    } else {
      response.stream().writeTo(out);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private String scrape(String query, Map<String, List<String>> headers) throws IOException {
    return body(
        new PrometheusMetricsHandler(registry, List.of(streamed)).handle(get(query, headers)));
  }

  private static String render(boolean openMetrics, MetricSnapshot... families) throws IOException {
    var out = new ByteArrayOutputStream();
    if (openMetrics) {
      OpenMetricsTextFormatWriter.create().write(out, MetricSnapshots.of(families));
    } else {
      PrometheusTextFormatWriter.create().write(out, MetricSnapshots.of(families));
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern SAMPLE =
      Pattern.compile(
          "([a-zA-Z_:][a-zA-Z0-9_:]*)"
              + "(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\""
              + "(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\")*)?\\})?"
              + " (-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|[+-]Inf)");

  /**
   * Checks an exposition line by line as strictly as Prometheus's parsers: each line a comment of a
   * known kind or a well-formed sample; each family's HELP and TYPE once, before its samples; a
   * family's samples together; no series twice; in OpenMetrics, # EOF last and nothing after it.
   *
   * @return each series (name and labels as written) to its value
   */
  private static Map<String, Double> parseStrictly(String exposition, boolean openMetrics) {
    var series = new TreeMap<String, Double>();
    var finished = new LinkedHashSet<String>();
    var described = new LinkedHashSet<String>();
    String current = null;
    var lines = exposition.split("\n", -1);
    assertThat(lines[lines.length - 1]).as("ends with a newline").isEmpty();
    for (int i = 0; i < lines.length - 1; i++) {
      var line = lines[i];
      if (openMetrics && line.equals("# EOF")) {
        assertThat(i).as("# EOF is the last line").isEqualTo(lines.length - 2);
        continue;
      }
      String family;
      if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        var parts = line.split(" ", 4);
        family = parts[2];
        assertThat(NAME.matcher(family).matches()).as(line).isTrue();
        assertThat(described.add(parts[1] + " " + family)).as("once: " + line).isTrue();
        if (parts[1].equals("TYPE")) {
          assertThat(parts[3])
              .isIn("counter", "gauge", "summary", "histogram", "untyped", "unknown");
        }
      } else {
        var sample = SAMPLE.matcher(line);
        assertThat(sample.matches()).as("a well-formed sample: " + line).isTrue();
        family = sample.group(1);
        if (openMetrics && family.endsWith("_total")) {
          family = family.substring(0, family.length() - "_total".length());
        }
        assertThat(described)
            .as("described before its samples: " + line)
            .contains("TYPE " + family);
        var key = sample.group(1) + (sample.group(2) == null ? "" : sample.group(2));
        assertThat(series.put(key, Double.parseDouble(sample.group(3))))
            .as("no series twice: " + key)
            .isNull();
      }
      if (!family.equals(current)) {
        assertThat(finished.add(family)).as("a family's lines together: " + family).isTrue();
        current = family;
      }
    }
    if (openMetrics) {
      assertThat(lines[lines.length - 2]).isEqualTo("# EOF");
    }
    return series;
  }

  private static List<String> comments(String exposition) {
    return exposition.lines().filter(line -> line.startsWith("#")).toList();
  }

  @Test
  void aStreamedFamilyIsValidTextFormatWithTheSeriesHelpAndTypeClientJavaWouldWrite()
      throws IOException {
    var scraped = scrape(null, Map.of());
    var expected = render(false, streamed.snapshot(), registry.scrape().get(0));

    assertThat(parseStrictly(scraped, false)).isEqualTo(parseStrictly(expected, false));
    assertThat(comments(scraped)).containsExactlyInAnyOrderElementsOf(comments(expected));
  }

  @Test
  void aStreamedFamilyIsValidOpenMetricsAheadOfTheEofTheRegistrysWriterEndsWith()
      throws IOException {
    var scraped = scrape(null, Map.of("Accept", List.of(OPENMETRICS)));
    var expected = render(true, streamed.snapshot(), registry.scrape().get(0));

    assertThat(parseStrictly(scraped, true)).isEqualTo(parseStrictly(expected, true));
    assertThat(comments(scraped)).containsExactlyInAnyOrderElementsOf(comments(expected));
  }

  @Test
  void nameFiltersChooseAmongStreamedAndRegisteredFamiliesAlike() throws IOException {
    var onlyStreamed = scrape("name[]=test_streamed_connections_total", Map.of());
    var onlyRegistered = scrape("name%5B%5D=test_registry_requests", Map.of());
    var both =
        scrape("name[]=test_streamed_connections&name[]=test_registry_requests_total", Map.of());

    assertThat(parseStrictly(onlyStreamed, false).keySet())
        .allMatch(series -> series.startsWith("test_streamed_connections_total{"))
        .hasSize(5);
    assertThat(parseStrictly(onlyRegistered, false))
        .containsOnlyKeys("test_registry_requests_total");
    assertThat(parseStrictly(both, false)).hasSize(6);
  }

  @Test
  void gzipIsAnsweredWithTheSameExposition() throws IOException {
    var handler = new PrometheusMetricsHandler(registry, List.of(streamed));
    var response = handler.handle(get(null, Map.of("Accept-Encoding", List.of("gzip, deflate"))));
    var zipped = new ByteArrayOutputStream();
    response.stream().writeTo(zipped);

    assertThat(response.headers()).containsEntry("Content-Encoding", "gzip");
    var unzipped =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(zipped.toByteArray()))
                .readAllBytes(),
            StandardCharsets.UTF_8);
    assertThat(unzipped).isEqualTo(scrape(null, Map.of()));
  }

  @Test
  void aFormatThatCannotBeStreamedIntoGetsTheStreamedFamilyFromItsSnapshot() throws IOException {
    var debug = scrape("debug=prometheus-protobuf", Map.of());

    assertThat(debug).contains("test_streamed_connections_total").contains("ns-2");
  }

  @Test
  void aLargeStreamedBodyArrivesWholeOverHttp() throws Exception {
    var large = new Streamed(20_000);
    var handler = new PrometheusMetricsHandler(registry, List.of(large));
    try (var server =
        ProbeHttpServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            Map.of("/metrics", ProbeHandler.blocking(handler)))) {
      var client = HttpClient.newHttpClient();
      var response =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                  .timeout(java.time.Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body().length()).isGreaterThan(1_000_000);
      var expected = render(false, large.snapshot(), registry.scrape().get(0));
      assertThat(parseStrictly(response.body(), false)).isEqualTo(parseStrictly(expected, false));
    }
  }

  @Test
  void withoutStreamedFamiliesTheRegistryIsServedAsBefore() throws IOException {
    var scraped = body(new PrometheusMetricsHandler(registry).handle(get(null, Map.of())));

    assertThat(scraped).isEqualTo(render(false, registry.scrape().get(0)));
  }
}
