package dev.proxima.http;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MetricNameFilter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Predicate;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a registry as client_java's own HTTP server does (content negotiation between the text,
 * OpenMetrics and protobuf formats, gzip, {@code name[]} filters, {@code debug=}), with
 * client_java's writers, plus any {@link StreamedFamily streamed families}: those are written
 * series by series ahead of the registry's families, in the text formats, so a family of tens of
 * thousands of series costs no snapshot of each. The body is {@link ProbeResponse#streamed
 * streamed}: written straight into the bytes that are sent.
 */
public final class PrometheusMetricsHandler implements ProbeHandler {
  private static final Logger log = LoggerFactory.getLogger(PrometheusMetricsHandler.class);

  private final PrometheusRegistry registry;
  private final List<StreamedFamily> streamed;
  private final ExpositionFormats formats = ExpositionFormats.init();

  public PrometheusMetricsHandler(PrometheusRegistry registry) {
    this(registry, List.of());
  }

  /**
   * @param streamed families written straight into the response; their names must not be families
   *     of the registry too
   */
  public PrometheusMetricsHandler(PrometheusRegistry registry, List<StreamedFamily> streamed) {
    this.registry = registry;
    this.streamed = List.copyOf(streamed);
  }

  @Override
  public ProbeResponse handle(ProbeRequest request) {
    List<String> names = new ArrayList<>();
    String debug;
    try {
      debug = parameters(request.query(), names);
    } catch (IllegalArgumentException malformed) {
      return ProbeResponse.text(400, "Invalid query parameters");
    }
    Predicate<String> filter =
        names.isEmpty() ? null : MetricNameFilter.builder().nameMustBeEqualTo(names).build();
    MetricSnapshots snapshots;
    try {
      // First: the collectors that keep the streamed families current read here.
      snapshots = filter == null ? registry.scrape() : registry.scrape(filter);
    } catch (RuntimeException failure) {
      log.atWarn().setCause(failure).log("Scraping metrics failed");
      return ProbeResponse.text(500, "scraping metrics failed: " + failure.getMessage() + "\n");
    }
    var families =
        streamed.stream().filter(family -> filter == null || filter.test(family.name())).toList();
    var headers = new LinkedHashMap<String, String>();
    ExpositionFormatWriter writer;
    if (debug != null) {
      headers.put("Content-Type", "text/plain; charset=utf-8");
      writer =
          switch (debug) {
            case "openmetrics" -> formats.getOpenMetricsTextFormatWriter();
            case "text" -> formats.getPrometheusTextFormatWriter();
            case "prometheus-protobuf" -> formats.getPrometheusProtobufWriter();
            default -> null;
          };
      if (writer == null || !writer.isAvailable()) {
        return ProbeResponse.of(
            500,
            "text/plain; charset=utf-8",
            "debug="
                + debug
                + ": Unsupported query parameter. Valid values are 'openmetrics', 'text', and"
                + " 'prometheus-protobuf'.",
            java.util.Map.of());
      }
    } else {
      writer = formats.findWriter(header(request, "Accept"));
      headers.put("Content-Type", writer.getContentType());
    }
    boolean gzip = debug == null && acceptsGzip(request);
    if (gzip) {
      headers.put("Content-Encoding", "gzip");
    }
    var chosen = writer;
    boolean asDebugString = debug != null && debug.equals("prometheus-protobuf");
    return ProbeResponse.streamed(
        200,
        headers,
        out -> {
          var body = gzip ? new GZIPOutputStream(out, 8192) : out;
          write(body, chosen, families, snapshots, asDebugString);
          if (body instanceof GZIPOutputStream zipped) {
            zipped.finish();
          }
        });
  }

  private static void write(
      OutputStream out,
      ExpositionFormatWriter writer,
      List<StreamedFamily> families,
      MetricSnapshots snapshots,
      boolean asDebugString)
      throws IOException {
    SeriesWriter.Format format =
        writer instanceof OpenMetricsTextFormatWriter
            ? SeriesWriter.Format.OPENMETRICS
            : writer instanceof PrometheusTextFormatWriter ? SeriesWriter.Format.TEXT : null;
    if (format == null || asDebugString) {
      // A format series cannot be streamed into: the streamed families are snapshotted too.
      var all = MetricSnapshots.builder();
      snapshots.forEach(all::metricSnapshot);
      var taken = new java.util.HashSet<String>();
      snapshots.forEach(snapshot -> taken.add(snapshot.getMetadata().getPrometheusName()));
      for (var family : families) {
        var snapshot = family.snapshot();
        // A streamed family that only exists for its name in the text formats (an upstream name
        // client_java would merge with a registry family) is left out here.
        if (taken.add(snapshot.getMetadata().getPrometheusName())) {
          all.metricSnapshot(snapshot);
        }
      }
      if (asDebugString) {
        out.write(writer.toDebugString(all.build()).getBytes(StandardCharsets.UTF_8));
      } else {
        writer.write(out, all.build());
      }
      return;
    }
    if (!families.isEmpty()) {
      var text = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 8192);
      var series = new SeriesWriter(text, format);
      for (var family : families) {
        family.write(series);
      }
      text.flush();
    }
    // The registry's families last: in OpenMetrics the writer ends the exposition with # EOF.
    writer.write(out, snapshots);
  }

  /** The {@code name[]} values into {@code names}; returns the {@code debug} value or null. */
  private static String parameters(String query, List<String> names) {
    String debug = null;
    if (query == null || query.isEmpty()) {
      return null;
    }
    for (var pair : query.split("&")) {
      int equals = pair.indexOf('=');
      var key =
          URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
      var value =
          equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
      if (key.equals("name[]")) {
        names.add(value);
      } else if (key.equals("debug") && debug == null) {
        debug = value;
      }
    }
    return debug;
  }

  private static String header(ProbeRequest request, String name) {
    var values = request.headers().apply(name);
    return values.isEmpty() ? null : String.join(",", values);
  }

  private static boolean acceptsGzip(ProbeRequest request) {
    for (var value : request.headers().apply("Accept-Encoding")) {
      for (var encoding : value.split(",")) {
        // "gzip;q=0" is a refusal; anything else naming gzip accepts it.
        var parts = encoding.trim().split(";");
        if (parts[0].trim().equalsIgnoreCase("gzip")
            && !(parts.length > 1 && parts[1].trim().replace(" ", "").matches("q=0(\\.0*)?"))) {
          return true;
        }
      }
    }
    return false;
  }
}
