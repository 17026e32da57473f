package dev.proxima.controller.reconcile;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Notices when another writer keeps reverting the hints Proxima wrote on a slice, and stops Proxima
 * from fighting it.
 *
 * <p>Proxima's hints equal kube-controller-manager's, so the two never disagree; a writer that does
 * (an older controller, a custom slice manager) would otherwise trade writes with Proxima forever.
 * A revert is a later version of a slice Proxima wrote whose hints, on the endpoints Proxima wrote,
 * differ from what Proxima wrote. After {@link Policy#reverts()} reverts within {@link
 * Policy#window()}, Proxima leaves the slice alone for {@link Policy#backOff()}.
 */
public final class OverwriteGuard {
  /** When to give up on a slice, and for how long. */
  public record Policy(int reverts, Duration window, Duration backOff) {
    public static final Policy DEFAULT =
        new Policy(3, Duration.ofMinutes(5), Duration.ofMinutes(10));
  }

  /** Whether to write now; when not, how long until it is worth trying again. */
  public record Decision(Verdict verdict, Duration retryAfter) {
    static final Decision WRITE = new Decision(Verdict.WRITE, Duration.ZERO);
  }

  /** The outcome for one intended write. */
  public enum Verdict {
    WRITE,
    /**
     * The cache still shows the version Proxima's last write replaced: it has not caught up with
     * that write, and a write over it could only fail with a conflict. The write's own event brings
     * the Service back.
     */
    CACHE_BEHIND,
    /** This revert crossed the threshold: report it once, then hold off. */
    BACK_OFF_STARTED,
    BACKING_OFF
  }

  private static final int PRUNE_EVERY = 256;

  /**
   * When to look again at a Service whose slice the cache has not caught up with, should the
   * write's own event not bring it back first.
   */
  static final Duration CACHE_CATCH_UP = Duration.ofSeconds(1);

  private final Policy policy;
  private final Clock clock;
  private final Map<String, History> bySliceUid = new HashMap<>();
  private int callsSincePrune;

  public OverwriteGuard(Policy policy, Clock clock) {
    this.policy = policy;
    this.clock = clock;
  }

  /** Called with the slice as it is now, before writing new hints onto it. */
  public synchronized Decision beforeWrite(EndpointSlice current) {
    var now = clock.instant();
    pruneOccasionally(now);
    var history = bySliceUid.get(uid(current));
    if (history == null) {
      return Decision.WRITE;
    }
    history.lastActivity = now;
    if (history.backOffUntil != null) {
      if (now.isBefore(history.backOffUntil)) {
        return new Decision(Verdict.BACKING_OFF, Duration.between(now, history.backOffUntil));
      }
      history.backOffUntil = null;
      history.reverts.clear();
    }
    var version = current.getMetadata().getResourceVersion();
    if (version != null && version.equals(history.replacedResourceVersion)) {
      return new Decision(Verdict.CACHE_BEHIND, CACHE_CATCH_UP);
    }
    if (!isRevert(history, current)) {
      return Decision.WRITE;
    }
    history.reverts.addLast(now);
    while (!history.reverts.isEmpty()
        && history.reverts.peekFirst().isBefore(now.minus(policy.window()))) {
      history.reverts.removeFirst();
    }
    if (history.reverts.size() >= policy.reverts()) {
      history.backOffUntil = now.plus(policy.backOff());
      return new Decision(Verdict.BACK_OFF_STARTED, policy.backOff());
    }
    return Decision.WRITE;
  }

  /** Called after a successful write with the slice as the API server returned it. */
  public synchronized void written(EndpointSlice stored) {
    written(stored, null);
  }

  /**
   * Called after a successful write with the slice as the API server returned it and the
   * resourceVersion it replaced: a cache that still shows that version has not caught up with the
   * write yet, which is no revert.
   */
  public synchronized void written(EndpointSlice stored, String replacedResourceVersion) {
    var history = bySliceUid.computeIfAbsent(uid(stored), uid -> new History());
    history.replacedResourceVersion = replacedResourceVersion;
    history.resourceVersion = stored.getMetadata().getResourceVersion();
    history.hintsByAddress = hintsByAddress(stored);
    history.lastActivity = clock.instant();
  }

  private static boolean isRevert(History history, EndpointSlice current) {
    if (Objects.equals(history.resourceVersion, current.getMetadata().getResourceVersion())) {
      return false;
    }
    var now = hintsByAddress(current);
    return history.hintsByAddress.entrySet().stream()
        .anyMatch(
            written ->
                now.containsKey(written.getKey())
                    && !Objects.equals(now.get(written.getKey()), written.getValue()));
  }

  /** Endpoint hints keyed by the endpoint's first address, as a comparable description. */
  private static Map<String, String> hintsByAddress(EndpointSlice slice) {
    var result = new HashMap<String, String>();
    List<Endpoint> endpoints = slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
    for (var endpoint : endpoints) {
      if (endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()) {
        continue;
      }
      var hints = endpoint.getHints();
      var description =
          hints == null
              ? "none"
              : "zones="
                  + names(hints.getForZones(), zone -> zone.getName())
                  + ";nodes="
                  + names(hints.getForNodes(), node -> node.getName());
      result.put(endpoint.getAddresses().get(0), description);
    }
    return result;
  }

  private static <T> List<String> names(
      List<T> items, java.util.function.Function<T, String> name) {
    return items == null ? List.of() : items.stream().map(name).toList();
  }

  private static String uid(EndpointSlice slice) {
    var uid = slice.getMetadata().getUid();
    // Objects from state files or tests may lack a UID; the namespaced name is unique enough then.
    return uid != null
        ? uid
        : slice.getMetadata().getNamespace() + "/" + slice.getMetadata().getName();
  }

  private void pruneOccasionally(Instant now) {
    if (++callsSincePrune < PRUNE_EVERY) {
      return;
    }
    callsSincePrune = 0;
    var horizon = now.minus(policy.window()).minus(policy.backOff());
    bySliceUid.values().removeIf(history -> history.lastActivity.isBefore(horizon));
  }

  private static final class History {
    String resourceVersion;
    String replacedResourceVersion;
    Map<String, String> hintsByAddress = Map.of();
    final Deque<Instant> reverts = new ArrayDeque<>();
    Instant backOffUntil;
    Instant lastActivity;
  }
}
