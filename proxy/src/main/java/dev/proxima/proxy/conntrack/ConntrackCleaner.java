package dev.proxima.proxy.conntrack;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code conntrack} tool: lists UDP flows, deletes the stale ones {@link StaleFlows}
 * finds. A missing tool is logged once and the cleanup skipped; rules are still programmed.
 */
public final class ConntrackCleaner {
  private static final Logger log = LoggerFactory.getLogger(ConntrackCleaner.class);

  private final List<String> command;
  private boolean warnedMissing;

  public ConntrackCleaner(List<String> command) {
    this.command = List.copyOf(command);
  }

  public static ConntrackCleaner onThisHost() {
    return new ConntrackCleaner(List.of("conntrack"));
  }

  /** Deletes stale UDP flows for this family's Service ports; returns how many filters ran. */
  public int cleanup(IpFamily family, List<NodePlanner.PlannedPort> ports) {
    var listing = run(List.of("-L", "-p", "udp", "-f", family == IpFamily.IPV4 ? "ipv4" : "ipv6"));
    if (listing == null) {
      return 0;
    }
    var deletions = StaleFlows.find(ConntrackListing.parse(listing), ports);
    int deleted = 0;
    for (var deletion : deletions) {
      var arguments =
          new ArrayList<>(
              List.of("-D", "-p", "udp", "-f", family == IpFamily.IPV4 ? "ipv4" : "ipv6"));
      if (deletion.serviceIp() != null) {
        arguments.addAll(List.of("--orig-dst", deletion.serviceIp()));
      } else {
        arguments.addAll(List.of("--orig-port-dst", String.valueOf(deletion.nodePort())));
      }
      arguments.addAll(List.of("--reply-src", deletion.replySource()));
      // conntrack exits non-zero when the flow expired in between; that is success for us.
      if (run(arguments) != null) {
        deleted++;
      }
    }
    if (deleted > 0) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("deleted", deleted)
          .log("Deleted stale UDP conntrack entries");
    }
    return deleted;
  }

  private String run(List<String> arguments) {
    var full = new ArrayList<>(command);
    full.addAll(arguments);
    try {
      var process = new ProcessBuilder(full).redirectErrorStream(true).start();
      var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        log.atWarn().log("conntrack did not finish in 30s; skipping UDP cleanup this sync");
        return null;
      }
      return output;
    } catch (IOException missing) {
      if (!warnedMissing) {
        warnedMissing = true;
        log.atWarn()
            .addKeyValue("error", missing.getMessage())
            .log("conntrack is not installed; stale UDP flows are not cleaned up");
      }
      return null;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
