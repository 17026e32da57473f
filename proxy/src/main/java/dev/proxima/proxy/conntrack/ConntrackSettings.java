package dev.proxima.proxy.conntrack;

import java.time.Duration;
import java.util.Objects;

/**
 * kube-proxy's conntrack tuning ({@code --conntrack-*}, the configuration file's {@code
 * conntrack}), with its defaults and meanings: a zero leaves the host's value as it is.
 *
 * @param maxPerCore {@code nf_conntrack_max} per CPU the proxy may use; 0 leaves it and ignores
 *     {@code min}
 * @param min the least {@code nf_conntrack_max} whatever the CPUs
 * @param tcpEstablishedTimeout {@code nf_conntrack_tcp_timeout_established}; 0 leaves it
 * @param tcpCloseWaitTimeout {@code nf_conntrack_tcp_timeout_close_wait}; 0 leaves it
 * @param tcpBeLiberal sets {@code nf_conntrack_tcp_be_liberal} to 1; false leaves it
 * @param udpTimeout {@code nf_conntrack_udp_timeout}; 0 leaves it
 * @param udpStreamTimeout {@code nf_conntrack_udp_timeout_stream}; 0 leaves it
 */
public record ConntrackSettings(
    int maxPerCore,
    int min,
    Duration tcpEstablishedTimeout,
    Duration tcpCloseWaitTimeout,
    boolean tcpBeLiberal,
    Duration udpTimeout,
    Duration udpStreamTimeout) {
  public static final int DEFAULT_MAX_PER_CORE = 32768;
  public static final int DEFAULT_MIN = 131072;

  public ConntrackSettings {
    if (maxPerCore < 0) {
      throw new IllegalArgumentException("--conntrack-max-per-core must be 0 or more");
    }
    if (min < 0) {
      throw new IllegalArgumentException("--conntrack-min must be 0 or more");
    }
    for (var timeout :
        new Duration[] {tcpEstablishedTimeout, tcpCloseWaitTimeout, udpTimeout, udpStreamTimeout}) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("conntrack timeouts must be 0 or more, got " + timeout);
      }
    }
  }

  /** kube-proxy's defaults. */
  public static ConntrackSettings defaults() {
    return new ConntrackSettings(
        DEFAULT_MAX_PER_CORE,
        DEFAULT_MIN,
        Duration.ofHours(24),
        Duration.ofHours(1),
        false,
        Duration.ZERO,
        Duration.ZERO);
  }

  /** Leaves every conntrack sysctl as the host has it. */
  public static ConntrackSettings none() {
    return new ConntrackSettings(
        0, 0, Duration.ZERO, Duration.ZERO, false, Duration.ZERO, Duration.ZERO);
  }

  /**
   * What a kube-proxy configuration file's {@code conntrack} section sets; a null field is absent
   * (kube-proxy's default applies). An explicit 0 is kept: it means "leave the host's value".
   */
  public record FromFile(
      Integer maxPerCore,
      Integer min,
      Duration tcpEstablishedTimeout,
      Duration tcpCloseWaitTimeout,
      Boolean tcpBeLiberal,
      Duration udpTimeout,
      Duration udpStreamTimeout) {}
}
