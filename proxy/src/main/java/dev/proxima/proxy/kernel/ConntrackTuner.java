package dev.proxima.proxy.kernel;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.conntrack.ConntrackTuning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link ConntrackTuning}'s decisions at start: one INFO per value written. A value this
 * process may not write (a read-only {@code /proc/sys}, as in the unprivileged pod the manifests
 * run, or a key the kernel keeps per host while the proxy runs in another network namespace) is an
 * expected setup, not a fault: one INFO names every such setting, so an operator knows what to set
 * on the node. Only a write that fails on a file that looked writable is a WARN. Never fatal: the
 * Services are programmed either way.
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
    if (!notWritable.isEmpty()) {
      log.atInfo()
          .addKeyValue("sysctls", String.join(",", notWritable))
          .addKeyValue("directory", files.directory().toString())
          .log(
              "Conntrack sysctls not tuned: this process may not write them (an unprivileged pod"
                  + " has /proc/sys read-only; outside the host's network namespace the kernel"
                  + " keeps nf_conntrack_max per host). Set them on the node (sysctl.d or the node"
                  + " image) or set the --conntrack-* options to 0; Services are programmed either"
                  + " way");
    }
    if (!failed.isEmpty()) {
      log.atWarn()
          .addKeyValue("sysctls", String.join(",", failed))
          .addKeyValue("directory", files.directory().toString())
          .log(
              "Cannot set these conntrack sysctls although /proc/sys looked writable: set them on"
                  + " the node, or set the --conntrack-* options to 0 to leave them; Services are"
                  + " programmed either way");
    }
    var untuned = new ArrayList<>(notWritable);
    untuned.addAll(failed);
    return untuned;
  }
}
