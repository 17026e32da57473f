package dev.proxima.proxy.conntrack;

import dev.proxima.proxy.kernel.HostCommand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code conntrack}: lists UDP flows and deletes the stale ones {@link StaleFlows} finds, each
 * run under a timeout. A missing tool is logged once and the cleanup skipped.
 */
public final class ConntrackCleaner {
  private static final Logger log = LoggerFactory.getLogger(ConntrackCleaner.class);

  /** A listing of a very large table takes seconds; far longer means the tool is stuck. */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final List<String> command;
  private final Duration timeout;
  private boolean warnedMissing;

  ConntrackCleaner(List<String> command, Duration timeout) {
    this.command = List.copyOf(command);
    this.timeout = timeout;
  }

  public static ConntrackCleaner onThisHost() {
    return new ConntrackCleaner(List.of("conntrack"), TIMEOUT);
  }

  /** Returns how many stale UDP flows were deleted. */
  public int cleanup(
      IpFamily family,
      List<NodePlanner.PlannedPort> ports,
      List<NodePlanner.PlannedPort> previous) {
    var familyArgument = family == IpFamily.IPV4 ? "ipv4" : "ipv6";
    var listing = run(List.of("-L", "-p", "udp", "-f", familyArgument));
    if (listing == null) {
      return 0;
    }
    var deletions = StaleFlows.find(StaleFlows.parse(listing), ports, previous);
    int deleted = 0;
    for (var deletion : deletions) {
      var arguments = new ArrayList<>(List.of("-D", "-p", "udp", "-f", familyArgument));
      if (deletion.serviceIp() != null) {
        arguments.addAll(List.of("--orig-dst", deletion.serviceIp()));
      } else {
        arguments.addAll(List.of("--orig-port-dst", String.valueOf(deletion.nodePort())));
      }
      arguments.addAll(List.of("--reply-src", deletion.replySource()));
      // conntrack exits non-zero when the flow expired in between; that is success for us. A run
      // that did not finish ends this cleanup: each further one would wait out its own timeout.
      if (run(arguments) == null) {
        break;
      }
      deleted++;
    }
    if (deleted > 0) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("deleted", deleted)
          .log("Deleted stale UDP conntrack entries");
    }
    return deleted;
  }

  /** Whatever the exit code; null when it did not run or finish. */
  private String run(List<String> arguments) {
    var full = new ArrayList<>(command);
    full.addAll(arguments);
    var outcome = HostCommand.run(full, "", timeout);
    switch (outcome.ending()) {
      case EXITED:
        return outcome.output();
      case NOT_STARTED:
        if (!warnedMissing) {
          warnedMissing = true;
          log.atWarn()
              .addKeyValue("error", outcome.output())
              .log("conntrack is not installed; stale UDP flows are not cleaned up");
        }
        return null;
      case TIMED_OUT:
        log.atWarn()
            .addKeyValue("timeout", timeout)
            .addKeyValue("arguments", String.join(" ", arguments))
            .log("conntrack did not finish in time and was killed; skipping UDP cleanup this sync");
        return null;
      default:
        return null;
    }
  }
}
