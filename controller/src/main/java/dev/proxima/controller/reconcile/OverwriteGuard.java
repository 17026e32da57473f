package dev.proxima.controller.reconcile;

import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Notices when another writer keeps reverting the hints Proxima wrote on a slice, and stops Proxima
 * from fighting it.
 *
 * <p>Proxima's hints equal kube-controller-manager's, so the two never disagree; a writer that does
 * (an older controller, a custom slice manager) would otherwise trade writes with Proxima forever.
 * A revert is a later version of a slice Proxima wrote in which an endpoint Proxima wrote, still
 * there, carries other hints than Proxima wrote. Endpoints that came or went do not matter: pod
 * churn that makes the slice controller rewrite a slice neither hides a revert nor is one, as long
 * as the endpoints that stayed keep their hints. After {@link Policy#reverts()} reverts within
 * {@link Policy#window()}, Proxima leaves the slice alone for {@link Policy#backOff()}.
 *
 * <p>Memory follows the live cluster: per slice it keeps digests of what it wrote (12 bytes per
 * endpoint: its address and its hints, see {@link HintDigest}), not the strings; a slice is
 * forgotten when a reconcile of its Service no longer finds it ({@link #retainOnly}) or the Service
 * is gone ({@link #forget}), after {@code window + backOff} without activity, and beyond {@link
 * #DEFAULT_MAX_SLICES} the one used longest ago goes first.
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
   * The most slices the guard remembers at once. Each costs its UID, a few 64-bit digests and 12
   * bytes per endpoint (at most 1,000 endpoints per slice, 100 by default), so the guard stays
   * below about 80 MiB under any churn with default slices; past the bound the slice written
   * longest ago is forgotten first, which at worst lets Proxima write a slice once more before it
   * notices a rival writer again.
   */
  public static final int DEFAULT_MAX_SLICES = 50_000;

  /**
   * When to look again at a Service whose slice the cache has not caught up with, should the
   * write's own event not bring it back first.
   */
  static final Duration CACHE_CATCH_UP = Duration.ofSeconds(1);

  private final Policy policy;
  private final Clock clock;
  private final int maxSlices;

  /** By slice UID, the least recently used first: the eldest goes when the bound is reached. */
  private final LinkedHashMap<String, History> bySliceUid;

  /** The UIDs remembered per Service, so a reconcile can forget the slices that are gone. */
  private final Map<ObjectKey, Set<String>> byService = new HashMap<>();

  private int callsSincePrune;

  public OverwriteGuard(Policy policy, Clock clock) {
    this(policy, clock, DEFAULT_MAX_SLICES);
  }

  /**
   * @param maxSlices the most slices remembered at once (see {@link #DEFAULT_MAX_SLICES})
   */
  public OverwriteGuard(Policy policy, Clock clock, int maxSlices) {
    this.policy = policy;
    this.clock = clock;
    this.maxSlices = Math.max(1, maxSlices);
    this.bySliceUid =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, History> eldest) {
            if (size() <= OverwriteGuard.this.maxSlices) {
              return false;
            }
            unindex(eldest.getKey(), eldest.getValue());
            return true;
          }
        };
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
      history.reverts = null;
    }
    var version = digest(current.getMetadata().getResourceVersion());
    if (history.replacedResourceVersion != 0 && version == history.replacedResourceVersion) {
      return new Decision(Verdict.CACHE_BEHIND, CACHE_CATCH_UP);
    }
    if (!isRevert(history, current, version)) {
      return Decision.WRITE;
    }
    if (history.reverts == null) {
      history.reverts = new ArrayDeque<>(policy.reverts());
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
    var uid = uid(stored);
    var history = bySliceUid.get(uid);
    if (history == null) {
      history = new History(SliceOwnership.serviceOf(stored).orElse(null));
      bySliceUid.put(uid, history);
      if (history.service != null) {
        byService.computeIfAbsent(history.service, k -> new HashSet<>()).add(uid);
      }
    }
    history.replacedResourceVersion =
        replacedResourceVersion == null ? 0 : digest(replacedResourceVersion);
    history.resourceVersion = digest(stored.getMetadata().getResourceVersion());
    history.written = HintDigest.of(stored);
    history.lastActivity = clock.instant();
  }

  /**
   * Forgets the slices of {@code service} that are not among {@code current}: a deleted slice is
   * forgotten at the next reconcile of its Service.
   */
  public synchronized void retainOnly(ObjectKey service, Collection<EndpointSlice> current) {
    var uids = byService.get(service);
    if (uids == null) {
      return;
    }
    var live = new HashSet<String>();
    current.forEach(slice -> live.add(uid(slice)));
    for (var it = uids.iterator(); it.hasNext(); ) {
      var uid = it.next();
      if (!live.contains(uid)) {
        it.remove();
        bySliceUid.remove(uid);
      }
    }
    if (uids.isEmpty()) {
      byService.remove(service);
    }
  }

  /** Forgets every slice of a Service that is gone. */
  public synchronized void forget(ObjectKey service) {
    var uids = byService.remove(service);
    if (uids != null) {
      uids.forEach(bySliceUid::remove);
    }
  }

  /** How many slices are remembered now. */
  public synchronized int size() {
    return bySliceUid.size();
  }

  /**
   * A new version of a slice Proxima wrote is a revert when an endpoint Proxima wrote is still in
   * it with other hints. Endpoints the slice controller added or removed are never counted either
   * way.
   */
  private static boolean isRevert(History history, EndpointSlice current, long version) {
    if (version == history.resourceVersion) {
      return false;
    }
    return history.written.hintsChangedIn(HintDigest.of(current));
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
    for (var it = bySliceUid.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (entry.getValue().lastActivity.isBefore(horizon)) {
        unindex(entry.getKey(), entry.getValue());
        it.remove();
      }
    }
  }

  private void unindex(String uid, History history) {
    if (history.service == null) {
      return;
    }
    var uids = byService.get(history.service);
    if (uids != null) {
      uids.remove(uid);
      if (uids.isEmpty()) {
        byService.remove(history.service);
      }
    }
  }

  private static long digest(String text) {
    return text == null ? 0 : HintDigest.hash(HintDigest.SEED, text);
  }

  /** What the guard keeps of one slice: digests, not the slice's strings. */
  private static final class History {
    final ObjectKey service;
    long resourceVersion;
    long replacedResourceVersion;
    HintDigest written;
    Deque<Instant> reverts;
    Instant backOffUntil;
    Instant lastActivity;

    History(ObjectKey service) {
      this.service = service;
    }
  }
}
