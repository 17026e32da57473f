package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressOwners;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a family's address collisions visible after each sync: each one logged once, when it
 * appears, naming both Services, and the gauge kept current, so a Service that lost an address to
 * another is never silent.
 */
final class AddressCollisionReport {
  private static final Logger log = LoggerFactory.getLogger(AddressCollisionReport.class);

  private final IpFamily family;
  private final ProxyMetrics metrics;
  private Set<String> reported = Set.of();

  AddressCollisionReport(IpFamily family, ProxyMetrics metrics) {
    this.family = family;
    this.metrics = metrics;
  }

  void report(List<AddressOwners.Collision> collisions) {
    var now = new HashSet<String>();
    for (var collision : collisions) {
      var text = collision.toString();
      now.add(text);
      if (!reported.contains(text)) {
        log.atWarn()
            .addKeyValue("family", family.apiName())
            .addKeyValue("address", collision.key())
            .addKeyValue("owner", collision.winner().service())
            .addKeyValue("loser", collision.loser().service())
            .log("Address collision: " + text);
      }
    }
    reported = now;
    metrics.addressCollisions(family, collisions.size());
  }
}
