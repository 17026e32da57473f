package dev.proxima.proxy.track;

import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A restart's comparison of the objects with its saved stamps, made as the informers store each
 * Service and slice of their first list instead of all at once in the first sync. fabric8 hands a
 * first list on in the order its objects were decoded, close to their order in the heap, where the
 * first sync walked the caches in hash order: at 44,000 Services this costs about half the CPU, and
 * the first sync only takes the outcome. Objects stored before the saved stamps are read wait for
 * them.
 *
 * <p>The verdict holds only for a store that nothing but its first list's additions reached: once
 * an informer passes on any other change (an update, a deletion, an addition after its first list,
 * a change found by a list again, a periodic resync), this comparison knows nothing, and the first
 * sync compares every object itself. The same holds once {@link #close}d, which the end of the
 * first sync pass does. An informer stores a change just before it hands it on, so a sync may take
 * up rules while a change is stored but not yet handed on: as with any change that arrives during a
 * sync, handing it on asks for the next, and the sync after a take-up plans every Service anyway.
 *
 * <p>Each informer stores from one thread at a time; the Services and the slices are counted apart,
 * so the two informers never wait for each other.
 */
public final class ListedComparison {
  private final Share<Service> services =
      new Share<>(
          (service, stamps, many) -> ObjectVersions.Snapshot.serviceMatched(service, stamps));
  private final Share<EndpointSlice> slices = new Share<>(ObjectVersions.Snapshot::sliceMatched);

  /** The stamps compared with: the first offered; null before and once closed. */
  private ObjectVersions.Saved saved;

  /** How many data planes are still reading stamps they may offer. */
  private int awaited;

  private boolean closed;

  /** One that compares nothing: for a proxy that saves no ruleset. */
  public static ListedComparison none() {
    var none = new ListedComparison();
    none.close();
    return none;
  }

  /** A Service of the Service informer's first list was stored. */
  public void serviceListed(Service service) {
    services.listed(service);
  }

  /** A slice of the slice informer's first list was stored. */
  public void sliceListed(EndpointSlice slice) {
    slices.listed(slice);
  }

  /** The Service informer passed on a change after its first list. */
  public void serviceChanged() {
    services.changed();
  }

  /** The slice informer passed on a change after its first list. */
  public void sliceChanged() {
    slices.changed();
  }

  /** A data plane is reading stamps it will offer ({@link #compareWith}) or say it has none. */
  public synchronized void awaitStamps() {
    awaited++;
  }

  /** A data plane that was reading stamps has none; once none is left reading, this closes. */
  public void noStamps() {
    synchronized (this) {
      awaited--;
    }
    closeUnlessAwaited();
  }

  /**
   * Closes this unless a data plane is reading stamps: then no stamps can come, and the objects the
   * informers list are not held for them.
   */
  public void closeUnlessAwaited() {
    boolean none;
    synchronized (this) {
      none = awaited <= 0 && saved == null;
    }
    if (none) {
      close();
    }
  }

  /**
   * Compares every object stored so far, and every one stored from now on, with {@code stamps};
   * stamps offered after the first are not compared with.
   */
  public void compareWith(ObjectVersions.Saved stamps) {
    synchronized (this) {
      if (closed || saved != null) {
        return;
      }
      saved = stamps;
    }
    services.compareWith(stamps.stamps());
    slices.compareWith(stamps.stamps());
  }

  /**
   * Whether the stored objects are those {@code stamps} were made from; empty when they were not
   * compared with these very stamps, or not every object was, or a change came after a first list.
   */
  public Optional<Boolean> verdict(ObjectVersions.Saved stamps) {
    synchronized (this) {
      if (closed || saved != stamps) {
        return Optional.empty();
      }
    }
    var servicesFound = services.found();
    var slicesFound = slices.found();
    if (servicesFound.isEmpty() || slicesFound.isEmpty()) {
      return Optional.empty();
    }
    if (stamps.services() < 0 || servicesFound.get() < 0 || slicesFound.get() < 0) {
      return Optional.of(false);
    }
    return Optional.of(
        servicesFound.get() == stamps.services() && slicesFound.get() == stamps.slices());
  }

  /** Compares nothing more and lets go of the stamps and of every object waiting for them. */
  public void close() {
    synchronized (this) {
      closed = true;
      saved = null;
    }
    services.close();
    slices.close();
  }

  /** One object's check against the stamps: 1 when found, 0 when of no Service, -1 when not. */
  @FunctionalInterface
  private interface Check<T> {
    int matched(T object, Map<ObjectKey, String> stamps, Map<ObjectKey, Map<String, String>> many);
  }

  /** One informer's objects: how many were found in the stamps, or that one was not. */
  private static final class Share<T> {
    private final Check<T> check;
    private List<T> waiting = new ArrayList<>();
    private Map<ObjectKey, String> stamps;

    /** Stamps naming many slices, each read into a map once ({@link ObjectVersions}). */
    private Map<ObjectKey, Map<String, String>> manySlices = new HashMap<>();

    private int found;
    private boolean differs;
    private boolean unknown;

    Share(Check<T> check) {
      this.check = check;
    }

    synchronized void listed(T object) {
      if (unknown || differs) {
        return;
      }
      if (stamps == null) {
        waiting.add(object);
      } else {
        compare(object);
      }
    }

    synchronized void changed() {
      unknown = true;
      letGo();
    }

    synchronized void compareWith(Map<ObjectKey, String> offered) {
      if (unknown || stamps != null) {
        return;
      }
      stamps = offered;
      for (var object : waiting) {
        if (differs) {
          break;
        }
        compare(object);
      }
      waiting = null;
    }

    /** How many objects were found in the stamps; -1 when one was not; empty when unknown. */
    synchronized Optional<Integer> found() {
      if (unknown || stamps == null) {
        return Optional.empty();
      }
      return Optional.of(differs ? -1 : found);
    }

    synchronized void close() {
      unknown = true;
      letGo();
    }

    private void compare(T object) {
      int matched = check.matched(object, stamps, manySlices);
      if (matched < 0) {
        differs = true;
      } else {
        found += matched;
      }
    }

    private void letGo() {
      waiting = null;
      stamps = null;
      manySlices = null;
    }
  }
}
