package dev.proxima.proxy.runtime;

import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.LocalDetection;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says how a family's rules detect local traffic when that is not what was configured: a WARN when
 * the fallback starts or changes (not at every sync), an INFO when the configured mode is back, the
 * gauge {@code proxima_proxy_local_detection_degraded}, the health bodies and {@code explain
 * --live}.
 */
final class LocalDetectionReport {
  private static final Logger log = LoggerFactory.getLogger(LocalDetectionReport.class);

  private final IpFamily family;
  private final ProxyMetrics metrics;
  private final ProxyHealth health;
  private final Consumer<String> explain;

  /** The description at the last report; null before the first. */
  private String reported;

  LocalDetectionReport(
      IpFamily family, ProxyMetrics metrics, ProxyHealth health, Consumer<String> explain) {
    this.family = family;
    this.metrics = metrics;
    this.health = health;
    this.explain = explain;
  }

  void report(LocalDetection detection) {
    var description = detection.describe();
    if (description.equals(reported)) {
      return;
    }
    boolean wasDegraded = reported != null && health.localDetectionWarning(family) != null;
    reported = description;
    metrics.localDetectionDegraded(family, detection.degraded());
    health.localDetection(family, detection.degraded() ? description : null);
    explain.accept(description);
    if (detection.degraded()) {
      log.atWarn()
          .addKeyValue("family", family.apiName())
          .addKeyValue("configured", detection.configured().apiName())
          .addKeyValue("effective", detection.effectiveName())
          .addKeyValue("missing", detection.missing())
          .log(
              "Local traffic detection falls back: the rules are programmed with "
                  + detection.effectiveName()
                  + " until the configured mode's input is there (see docs/install.md)");
    } else if (wasDegraded) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("mode", detection.effectiveName())
          .log("Local traffic detection uses the configured mode again");
    }
  }
}
