package dev.proxima.proxy.conntrack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Decides which conntrack sysctls to write, as kube-proxy does: {@code nf_conntrack_max} becomes
 * {@code maxPerCore} × CPUs (at most {@link #MAX_SCALED}) or {@code min} if larger, and is never
 * lowered; the timeouts and {@code tcp_be_liberal} are written when they differ from the host's. A
 * zero setting writes nothing.
 */
public final class ConntrackTuning {
  public static final String MAX = "nf_conntrack_max";
  public static final String TCP_ESTABLISHED = "nf_conntrack_tcp_timeout_established";
  public static final String TCP_CLOSE_WAIT = "nf_conntrack_tcp_timeout_close_wait";
  public static final String TCP_BE_LIBERAL = "nf_conntrack_tcp_be_liberal";
  public static final String UDP = "nf_conntrack_udp_timeout";
  public static final String UDP_STREAM = "nf_conntrack_udp_timeout_stream";

  /** The largest per-core product kube-proxy asks for, since Kubernetes 1.36. */
  public static final long MAX_SCALED = 1L << 20;

  private ConntrackTuning() {}

  /** One sysctl under {@code net/netfilter}; {@code current} is empty when unreadable. */
  public record Decision(String key, long wanted, OptionalLong current, boolean write) {}

  public static List<Decision> decide(
      ConntrackSettings settings, int cpus, Function<String, OptionalLong> current) {
    var decisions = new ArrayList<Decision>();
    if (settings.maxPerCore() > 0) {
      long scaled = Math.min((long) settings.maxPerCore() * Math.max(cpus, 1), MAX_SCALED);
      long max = Math.max(scaled, settings.min());
      var now = current.apply(MAX);
      // Never lower: a host (or its operator) that set more connections than asked keeps them.
      decisions.add(new Decision(MAX, max, now, now.isEmpty() || now.getAsLong() < max));
    }
    seconds(decisions, TCP_ESTABLISHED, settings.tcpEstablishedTimeout(), current);
    seconds(decisions, TCP_CLOSE_WAIT, settings.tcpCloseWaitTimeout(), current);
    if (settings.tcpBeLiberal()) {
      set(decisions, TCP_BE_LIBERAL, 1, current);
    }
    seconds(decisions, UDP, settings.udpTimeout(), current);
    seconds(decisions, UDP_STREAM, settings.udpStreamTimeout(), current);
    return decisions;
  }

  private static void seconds(
      List<Decision> decisions,
      String key,
      Duration value,
      Function<String, OptionalLong> current) {
    if (value.getSeconds() > 0) {
      set(decisions, key, value.getSeconds(), current);
    }
  }

  private static void set(
      List<Decision> decisions, String key, long value, Function<String, OptionalLong> current) {
    var now = current.apply(key);
    decisions.add(new Decision(key, value, now, now.isEmpty() || now.getAsLong() != value));
  }
}
