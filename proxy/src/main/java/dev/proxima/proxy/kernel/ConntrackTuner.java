package dev.proxima.proxy.kernel;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.conntrack.ConntrackTuning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Applies {@link ConntrackTuning}'s decisions at start, one INFO per value written. A value this
 * process may not write (a read-only {@code /proc/sys} in an unprivileged pod, a per-host key from
 * another network namespace) is expected: one INFO names them all. Only a write failing on a file
 * that looked writable is a WARN. Never fatal.
 */
public final class ConntrackTuner {
  private static final Logger log = LoggerFactory.getLogger(ConntrackTuner.class);

  private ConntrackTuner() {}

  /** Returns the sysctls ({@code net.netfilter.KEY=VALUE}) left as the node has them. */
  public static List<String> apply(ConntrackSettings settings, int cpus, SysctlFiles files) {
    var notWritable = new ArrayList<String>();
    var failed = new ArrayList<String>();
    for (var decision : ConntrackTuning.decide(settings, cpus, files::read)) {
      if (!decision.write()) {
        continue;
      }
      var setting = "net.netfilter." + decision.key() + "=" + decision.wanted();
      if (!files.writable(decision.key())) {
        notWritable.add(setting);
        continue;
      }
      try {
        files.write(decision.key(), decision.wanted());
        log.atInfo()
            .addKeyValue("sysctl", "net.netfilter." + decision.key())
            .addKeyValue("value", decision.wanted())
            .addKeyValue(
                "was",
                decision.current().isPresent()
                    ? String.valueOf(decision.current().getAsLong())
                    : "?")
            .log("Set conntrack sysctl");
      } catch (IOException | SecurityException refused) {
        failed.add(setting);
      }
    }
    report(
        log.atInfo(),
        notWritable,
        files,
        "Conntrack sysctls not tuned: this process may not write them (an unprivileged pod"
            + " has /proc/sys read-only; outside the host's network namespace the kernel"
            + " keeps nf_conntrack_max per host). Set them on the node (sysctl.d or the node"
            + " image) or set the --conntrack-* options to 0; Services are programmed either"
            + " way");
    report(
        log.atWarn(),
        failed,
        files,
        "Cannot set these conntrack sysctls although /proc/sys looked writable: set them on"
            + " the node, or set the --conntrack-* options to 0 to leave them; Services are"
            + " programmed either way");
    var untuned = new ArrayList<>(notWritable);
    untuned.addAll(failed);
    return untuned;
  }

  private static void report(
      LoggingEventBuilder line, List<String> sysctls, SysctlFiles files, String message) {
    if (!sysctls.isEmpty()) {
      line.addKeyValue("sysctls", String.join(",", sysctls))
          .addKeyValue("directory", files.directory().toString())
          .log(message);
    }
  }
}
