package dev.proxima.proxy.runtime;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.sync.SyncPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What one family's sync did, handed to what follows the syncs (metrics, health, explain).
 *
 * @param error the tool's message when {@code FAILED}, else null
 * @param rulesLoaded lines handed to the kernel; 0 when nothing was loaded
 * @param plan the plan now programmed when the sync succeeded, else null
 * @param triggers when the changes this sync programmed were first seen
 */
public record SyncResult(
    IpFamily family,
    SyncPolicy.Decision decision,
    Outcome outcome,
    String error,
    Instant started,
    Instant finished,
    int rulesLoaded,
    NodePlanner.FamilyPlan plan,
    boolean touchedUdp,
    List<Instant> triggers,
    List<String> hostAddresses) {
  public enum Outcome {
    LOADED,
    UNCHANGED,
    /** Loading failed; the previous rules stay in place. */
    FAILED
  }

  public SyncResult {
    triggers = List.copyOf(triggers);
    hostAddresses = List.copyOf(hostAddresses);
  }

  public boolean succeeded() {
    return outcome == Outcome.LOADED || outcome == Outcome.UNCHANGED;
  }

  public Duration elapsed() {
    return Duration.between(started, finished);
  }
}
