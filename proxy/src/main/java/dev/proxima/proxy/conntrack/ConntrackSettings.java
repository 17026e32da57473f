package dev.proxima.proxy.conntrack;

import java.time.Duration;
import java.util.Objects;

/**
 * kube-proxy's conntrack tuning ({@code --conntrack-*}, the configuration file's {@code
 * conntrack}), with its defaults and meanings: a zero (or false) leaves the host's value as it is.
 *
 * @param maxPerCore {@code nf_conntrack_max} per CPU; 0 leaves it and ignores {@code min}
 */
public record ConntrackSettings(
    int maxPerCore,
    int min,
    Duration tcpEstablishedTimeout,
    Duration tcpCloseWaitTimeout,
    boolean tcpBeLiberal,
    Duration udpTimeout,
    Duration udpStreamTimeout) {
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

  /**
   * A configuration file's {@code conntrack} section: null is absent, 0 leaves the host's value.
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
