package dev.proxima.proxy.model;

import java.time.Instant;
import java.util.Comparator;

/**
 * When a Service was created and its UID: what decides which of two Services keeps an address both
 * claim in the same class (two externalIPs, two load-balancer IPs). The older Service keeps it,
 * then the smaller UID. A tenant can neither choose an older creation time than an existing
 * Service's nor pick its UID, so unlike an order by name, this one cannot be won by naming.
 *
 * @param created metadata.creationTimestamp, or null when unknown (offline files); unknown sorts
 *     last
 * @param uid metadata.uid, or null when unknown; unknown sorts last
 */
public record ServiceOrigin(Instant created, String uid) implements Comparable<ServiceOrigin> {
  public static final ServiceOrigin UNKNOWN = new ServiceOrigin(null, null);

  private static final Comparator<ServiceOrigin> ORDER =
      Comparator.comparing(
              ServiceOrigin::created, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
          .thenComparing(
              ServiceOrigin::uid, Comparator.nullsLast(Comparator.<String>naturalOrder()));

  @Override
  public int compareTo(ServiceOrigin other) {
    return ORDER.compare(this, other);
  }
}
