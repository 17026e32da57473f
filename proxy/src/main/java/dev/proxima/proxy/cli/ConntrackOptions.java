package dev.proxima.proxy.cli;

import dev.proxima.proxy.config.GoDuration;
import dev.proxima.proxy.conntrack.ConntrackSettings;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** kube-proxy's {@code --conntrack-*} flags, with its defaults; 0 leaves the host's value. */
final class ConntrackOptions {
  @Option(
      names = "--conntrack-max-per-core",
      defaultValue = "${env:PROXIMA_CONNTRACK_MAX_PER_CORE:-32768}",
      description =
          "nf_conntrack_max per CPU (at most 1048576 in all, and at least --conntrack-min); only"
              + " ever raised. 0 leaves the limit and ignores --conntrack-min (default:"
              + " ${DEFAULT-VALUE}).")
  int maxPerCore;

  @Option(
      names = "--conntrack-min",
      defaultValue = "${env:PROXIMA_CONNTRACK_MIN:-131072}",
      description =
          "The least nf_conntrack_max, whatever --conntrack-max-per-core gives (default:"
              + " ${DEFAULT-VALUE}).")
  int min;

  @Option(
      names = "--conntrack-tcp-timeout-established",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_TIMEOUT_ESTABLISHED:-24h}",
      converter = GoDurationConverter.class,
      description =
          "Idle timeout of established TCP connections; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration tcpEstablishedTimeout;

  @Option(
      names = "--conntrack-tcp-timeout-close-wait",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_TIMEOUT_CLOSE_WAIT:-1h}",
      converter = GoDurationConverter.class,
      description =
          "Timeout of TCP connections in CLOSE_WAIT; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration tcpCloseWaitTimeout;

  @Option(
      names = "--conntrack-tcp-be-liberal",
      defaultValue = "${env:PROXIMA_CONNTRACK_TCP_BE_LIBERAL:-false}",
      description =
          "Set nf_conntrack_tcp_be_liberal to 1: out-of-window TCP packets are not marked"
              + " INVALID (default: ${DEFAULT-VALUE}, which leaves it).")
  boolean tcpBeLiberal;

  @Option(
      names = "--conntrack-udp-timeout",
      defaultValue = "${env:PROXIMA_CONNTRACK_UDP_TIMEOUT:-0}",
      converter = GoDurationConverter.class,
      description = "Idle timeout of UNREPLIED UDP flows; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration udpTimeout;

  @Option(
      names = "--conntrack-udp-timeout-stream",
      defaultValue = "${env:PROXIMA_CONNTRACK_UDP_TIMEOUT_STREAM:-0}",
      converter = GoDurationConverter.class,
      description = "Idle timeout of ASSURED UDP flows; 0 leaves it (default: ${DEFAULT-VALUE}).")
  Duration udpStreamTimeout;

  ConntrackSettings toSettings() {
    return new ConntrackSettings(
        maxPerCore,
        min,
        tcpEstablishedTimeout,
        tcpCloseWaitTimeout,
        tcpBeLiberal,
        udpTimeout,
        udpStreamTimeout);
  }

  /** Go's duration spelling, as kube-proxy's flags take it. */
  static final class GoDurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return GoDuration.parse(value.trim());
      } catch (IllegalArgumentException invalid) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration (e.g. 24h, 1h30m, 90s, 0)");
      }
    }
  }
}
