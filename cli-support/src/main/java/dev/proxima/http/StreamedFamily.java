package dev.proxima.http;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;

/**
 * A metric family with too many series to snapshot on every scrape: {@link
 * PrometheusMetricsHandler} writes its series straight into the response instead of building an
 * object per series first, as client_java's registry does. It is not registered in the registry;
 * whatever keeps its figures current (a collector that reads them when scraped) is, and the handler
 * scrapes the registry before it writes this family.
 */
public interface StreamedFamily {
  /**
   * The family's name as a registry knows it (a counter's without {@code _total}), which {@code
   * name[]} filters are matched against.
   */
  String name();

  /** Writes the family, its HELP and TYPE lines first, in the format {@code out} writes. */
  void write(SeriesWriter out) throws IOException;

  /**
   * The family as a client_java snapshot, for the formats that cannot be streamed into (protocol
   * buffers): costs what the streaming avoids, so only a client asking for such a format pays.
   */
  MetricSnapshot snapshot();
}
