package dev.proxima.proxy.kernel;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.conntrack.ConntrackTuning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link ConntrackTuning}'s decisions at start: one INFO per value written, and one WARN
 * that lists every value that could not be written (a read-only {@code /proc/sys}, as in an
 * unprivileged container, or a key the kernel keeps per host while the proxy runs in another
 * network namespace). Never fatal: the Services are programmed either way.
 */
public final class ConntrackTuner {
  private static final Logger log = LoggerFactory.getLogger(ConntrackTuner.class);

  private ConntrackTuner() {}

  /**
   * @return the keys that could not be set to what the settings ask for
   */
  public static List<String> apply(ConntrackSettings settings, int cpus, SysctlFiles files) {
    var failed = new ArrayList<String>();
    for (var decision : ConntrackTuning.decide(settings, cpus, files::read)) {
      if (!decision.write()) {
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
        failed.add("net.netfilter." + decision.key() + "=" + decision.wanted());
      }
    }
    if (!failed.isEmpty()) {
      log.atWarn()
          .addKeyValue("sysctls", String.join(",", failed))
          .addKeyValue("directory", files.directory().toString())
          .log(
              "Cannot set these conntrack sysctls (read-only /proc/sys: set them on the node, run"
                  + " the proxy privileged, or set the --conntrack-* flags to 0 to leave them);"
                  + " Services are programmed either way");
    }
    return failed;
  }
}
