package dev.proxima.proxy.track;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Which revision of each Service and of its EndpointSlices a sync planned, as the API server
 * numbers them ({@code metadata.resourceVersion}): one stamp per Service key, so a restarted proxy
 * can tell, without planning anything, that every object is still the one its saved ruleset was
 * planned from. The API server gives an object a new resourceVersion on every write and tenants
 * cannot choose it, so equal stamps mean unchanged objects; an object updated in a way the rules do
 * not read still gets a new stamp, which costs that restart its shortcut, never its correctness.
 *
 * <p>A stamp is the Service's resourceVersion ({@code -} when there is no Service) followed by each
 * slice labelled with its name, in name order, as {@code name=resourceVersion}. An object whose
 * resourceVersion is missing or holds a blank or {@code =} cannot be stamped: its key gets no
 * stamp, so it never matches a saved one.
 */
public final class ObjectVersions {
  private ObjectVersions() {}

  /**
   * Stamps up to this long (about a dozen slices) are scanned for each of their slices; longer ones
   * are read into a map once.
   */
  static final int SCANNED_STAMP_LENGTH = 512;

  /**
   * A saved ruleset's stamps, counted when read: a restart's first sync compares the objects with
   * them, and counting 44,000 stamps there took a pass over every one on the sync thread.
   *
   * @param services how many stamps name a Service; -1 when a stamp is empty, which no stamp
   *     written is, so nothing matches it
   * @param slices how many slices the stamps name
   */
  public record Saved(Map<ObjectKey, String> stamps, int services, int slices) {
    /** The stamps, counted. */
    public static Saved of(Map<ObjectKey, String> stamps) {
      int services = 0;
      int slices = 0;
      for (var stamp : stamps.values()) {
        int named = servicesNamed(stamp);
        if (named < 0) {
          return new Saved(stamps, -1, 0);
        }
        services += named;
        slices += slicesNamed(stamp);
      }
      return new Saved(stamps, services, slices);
    }

    /** 1 when the stamp names a Service, 0 when only slices, -1 when it cannot be a stamp. */
    private static int servicesNamed(String stamp) {
      if (stamp == null || stamp.isEmpty()) {
        return -1;
      }
      return stamp.charAt(0) == '-' ? 0 : 1;
    }

    /** How many slices a stamp names. */
    private static int slicesNamed(String stamp) {
      int named = 0;
      for (int i = stamp.indexOf(' '); i >= 0; i = stamp.indexOf(' ', i + 1)) {
        named++;
      }
      return named;
    }
  }

  /**
   * The cache's Services and slices as one sync pass takes them: what a restart compares with the
   * stamps its saved ruleset was planned from, and what every family of the pass plans from. Not
   * thread-safe but for {@link #stamping}: one sync pass uses it.
   */
  public static final class Snapshot {
    private final Collection<Service> services;
    private final Collection<EndpointSlice> slices;

    /**
     * The saved stamps these objects were last compared with, another family's, usually equal to
     * the next family's; and whether they matched.
     */
    private Map<ObjectKey, String> compared;

    private boolean comparedEqual;

    /** Whether that outcome was the comparison made as the informers listed. */
    private boolean comparedWhileListing;

    /** These objects' own stamps, made once for every family's saved file and the log. */
    private final Stamping stamping;

    /** The comparison made as the informers stored these objects; null when none was. */
    private final ListedComparison listed;

    public Snapshot(Collection<Service> services, Collection<EndpointSlice> slices) {
      this(services, slices, null);
    }

    /**
     * @param listed the comparison made as the informers stored these objects, which {@link
     *     #comparing} takes when it has a verdict for the stamps; null for none
     */
    public Snapshot(
        Collection<Service> services, Collection<EndpointSlice> slices, ListedComparison listed) {
      this.services = services;
      this.slices = slices;
      this.stamping = new Stamping(services, slices);
      this.listed = listed;
    }

    public Collection<Service> services() {
      return services;
    }

    public Collection<EndpointSlice> slices() {
      return slices;
    }

    /**
     * These objects' stamps ({@link #of}), made the first time asked for, on any thread: the saving
     * threads of both families share them. It holds the objects only, not the snapshot.
     */
    public Supplier<Map<ObjectKey, String>> stamping() {
      return stamping;
    }

    /**
     * True when {@link #of} these objects would equal {@code saved}, found without stamping them:
     * at 44,000 Services stamping costs a restart's first sync 0.2 s of the 0.1 s it may take,
     * while looking each object's resourceVersion up in its key's saved stamp costs a fraction.
     * Each Service must start its key's stamp, each slice stand in its key's stamp by name, and
     * there must be as many of each as the stamps hold: names are unique per namespace, so every
     * object then has its own entry and no entry is left over.
     */
    public boolean matches(Map<ObjectKey, String> saved) {
      return comparing(Saved.of(saved)).matches(() -> 0);
    }

    /**
     * A comparison of these objects with {@code saved}, as {@link #matches} makes, that two threads
     * can share; already decided when these objects were compared with equal stamps before, or with
     * these very stamps as the informers stored them.
     */
    public Comparison comparing(Saved saved) {
      var known = comparedBefore(saved.stamps());
      if (known.isPresent()) {
        return new Comparison(known.get(), comparedWhileListing);
      }
      var asListed = listed == null ? Optional.<Boolean>empty() : listed.verdict(saved);
      if (asListed.isEmpty()) {
        return new Comparison(saved);
      }
      // The other family's equal stamps then need no comparison, whatever happens meanwhile.
      compared(saved.stamps(), asListed.get(), true);
      return new Comparison(asListed.get(), true);
    }

    /**
     * Whether these objects matched {@code saved}, when they were compared with stamps equal to it
     * before: each family of a sync pass has its own saved stamps, and they are the same. Costs a
     * reference check when they are the very stamps compared before, as the families' are once
     * found equal while read; a pass over them otherwise.
     */
    public Optional<Boolean> comparedBefore(Map<ObjectKey, String> saved) {
      return compared != null && (compared == saved || compared.equals(saved))
          ? Optional.of(comparedEqual)
          : Optional.empty();
    }

    /**
     * These objects were compared with {@code saved}, and {@code equal} says whether they matched.
     */
    private void compared(Map<ObjectKey, String> saved, boolean equal) {
      compared(saved, equal, false);
    }

    private void compared(Map<ObjectKey, String> saved, boolean equal, boolean whileListing) {
      compared = saved;
      comparedEqual = equal;
      comparedWhileListing = whileListing;
    }

    /**
     * One comparison of the snapshot with saved stamps, which a second thread may share: the
     * caller's thread compares the Services, any other thread the slices, and the caller's takes
     * what is left of the slices once its Services are done, a chunk at a time. At 44,000 Services
     * the slices cost twice the Services, so splitting by kind left one core idle for half the
     * comparison.
     */
    public final class Comparison {
      private final Saved saved;
      private final Boolean known;
      private final SliceChunks slices;

      /** Whether the outcome is the one the informers' first lists were compared to. */
      private final boolean whileListing;

      private Comparison(boolean known, boolean whileListing) {
        this.saved = null;
        this.known = known;
        this.whileListing = whileListing;
        this.slices = null;
      }

      private Comparison(Saved saved) {
        this.saved = saved;
        this.known = null;
        this.whileListing = false;
        this.slices = new SliceChunks(Snapshot.this.slices, saved.stamps());
      }

      /** Whether the outcome was known before any object was compared. */
      public boolean decided() {
        return known != null;
      }

      /** Whether the outcome is that of the comparison made as the informers stored the objects. */
      public boolean madeWhileListing() {
        return whileListing;
      }

      /**
       * The share of a thread beside the caller's: slices, a chunk at a time, until none is left or
       * one is not in its stamp.
       *
       * @return how many slices this share found in their stamps, or -1 when one was not
       */
      public int sharedSlices() {
        return slices == null ? 0 : slices.compare();
      }

      /**
       * Takes the caller's share, then waits for the other thread's, and remembers the outcome for
       * {@link #comparedBefore}. Call it once, on the thread that made the comparison.
       *
       * @param otherShare waits for what {@link #sharedSlices} returned on the other thread; 0 when
       *     no other thread shares the comparison
       */
      public boolean matches(IntSupplier otherShare) {
        if (known != null) {
          return known;
        }
        int callerSlices = callerShare();
        if (callerSlices < 0) {
          slices.stop();
          compared(saved.stamps(), false);
          return false;
        }
        int otherSlices = otherShare.getAsInt();
        boolean equal = otherSlices >= 0 && callerSlices + otherSlices == saved.slices();
        compared(saved.stamps(), equal);
        return equal;
      }

      /** Ends the other thread's share early, as soon as its current chunk is done. */
      public void cancel() {
        if (slices != null) {
          slices.stop();
        }
      }

      /**
       * The Services, then the slices no other thread has taken.
       *
       * @return how many slices this share found in their stamps, or -1 when an object differs
       */
      private int callerShare() {
        if (saved.services() < 0) {
          return -1;
        }
        int services = 0;
        for (var service : Snapshot.this.services) {
          int matched = serviceMatched(service, saved.stamps());
          if (matched < 0) {
            return -1;
          }
          services += matched;
        }
        return services == saved.services() ? slices.compare() : -1;
      }
    }

    // One object's check each: the slices' is shared by both threads' chunks.

    /** 1 when the Service starts its key's stamp, 0 when it has no key, -1 when it does not. */
    static int serviceMatched(Service service, Map<ObjectKey, String> saved) {
      var metadata = service.getMetadata();
      if (metadata == null || metadata.getNamespace() == null || metadata.getName() == null) {
        return 0;
      }
      var stamp = saved.get(new ObjectKey(metadata.getNamespace(), metadata.getName()));
      var version = metadata.getResourceVersion();
      return stamp != null && stampable(version) && fieldAt(stamp, 0, version) ? 1 : -1;
    }

    /**
     * The slices of one comparison, handed out in chunks to the threads comparing them: each slice
     * must stand in its key's stamp by name.
     */
    private static final class SliceChunks {
      /** Small enough that the last chunk taken ends soon after the other thread's share. */
      private static final int CHUNK = 1024;

      private final EndpointSlice[] slices;
      private final Map<ObjectKey, String> saved;
      private final AtomicInteger next = new AtomicInteger();
      private volatile boolean stopped;

      SliceChunks(Collection<EndpointSlice> slices, Map<ObjectKey, String> saved) {
        this.slices = slices.toArray(new EndpointSlice[0]);
        this.saved = saved;
      }

      /**
       * Compares chunks until none is left or a slice differs.
       *
       * @return how many slices this thread found in their stamps, or -1 when one was not
       */
      int compare() {
        // A stamp naming many slices is read into a map once: scanning it for each of its slices
        // would cost its length times their number, which a tenant chooses.
        var manySlices = new HashMap<ObjectKey, Map<String, String>>();
        int found = 0;
        // Stopped is read before a chunk is taken, never after: a chunk taken is compared.
        while (!stopped) {
          int from = next.getAndAdd(CHUNK);
          if (from >= slices.length) {
            break;
          }
          for (int i = from; i < Math.min(from + CHUNK, slices.length); i++) {
            int match = sliceMatched(slices[i], saved, manySlices);
            if (match < 0) {
              stopped = true;
              return -1;
            }
            found += match;
          }
        }
        return found;
      }

      void stop() {
        stopped = true;
      }
    }

    /**
     * 1 when the slice stands in its key's stamp, 0 when it belongs to no Service, -1 when it does
     * not.
     */
    static int sliceMatched(
        EndpointSlice slice,
        Map<ObjectKey, String> saved,
        Map<ObjectKey, Map<String, String>> manySlices) {
      var key = serviceOf(slice);
      if (key == null) {
        return 0;
      }
      var stamp = saved.get(key);
      if (stamp == null) {
        return -1;
      }
      boolean found =
          stamp.length() <= SCANNED_STAMP_LENGTH
              ? sliceIn(stamp, slice)
              : sliceIn(manySlices.computeIfAbsent(key, k -> slicesOf(stamp)), slice);
      return found ? 1 : -1;
    }

    /** Whether {@code byName}, a stamp's slices, holds this slice's resourceVersion. */
    private static boolean sliceIn(Map<String, String> byName, EndpointSlice slice) {
      var metadata = slice.getMetadata();
      var version = metadata == null ? null : metadata.getResourceVersion();
      return stampable(version) && version.equals(byName.get(nameOf(slice)));
    }

    /** A stamp's slices by name; empty when one name stands twice, which no stamp written has. */
    private static Map<String, String> slicesOf(String stamp) {
      var byName = new HashMap<String, String>();
      var fields = stamp.split(" ");
      for (int i = 1; i < fields.length; i++) {
        int equals = fields[i].indexOf('=');
        if (equals <= 0
            || byName.put(fields[i].substring(0, equals), fields[i].substring(equals + 1))
                != null) {
          return Map.of();
        }
      }
      return byName;
    }

    /** How many keys' stamps differ from {@code saved}, counting a key on either side only. */
    public int changedKeys(Map<ObjectKey, String> saved) {
      var now = stamping.get();
      int changed = 0;
      for (var entry : now.entrySet()) {
        var stamp = entry.getValue();
        if (stamp == null || !stamp.equals(saved.get(entry.getKey()))) {
          changed++;
        }
      }
      for (var key : saved.keySet()) {
        if (!now.containsKey(key)) {
          changed++;
        }
      }
      return changed;
    }

    /** Whether {@code stamp} holds {@code name=resourceVersion} of this slice among its slices. */
    private static boolean sliceIn(String stamp, EndpointSlice slice) {
      var name = nameOf(slice);
      var metadata = slice.getMetadata();
      var version = metadata == null ? null : metadata.getResourceVersion();
      if (!stampable(name) || !stampable(version)) {
        return false;
      }
      for (int i = stamp.indexOf(' '); i >= 0; i = stamp.indexOf(' ', i + 1)) {
        int value = i + 1 + name.length();
        if (stamp.regionMatches(i + 1, name, 0, name.length())
            && value < stamp.length()
            && stamp.charAt(value) == '=') {
          return fieldAt(stamp, value + 1, version);
        }
      }
      return false;
    }

    /** Whether {@code stamp} holds exactly {@code field} from {@code at} to a blank or its end. */
    private static boolean fieldAt(String stamp, int at, String field) {
      int end = at + field.length();
      return stamp.regionMatches(at, field, 0, field.length())
          && (end == stamp.length() || stamp.charAt(end) == ' ');
    }
  }

  /** {@link #of} some objects, made once, whichever thread asks first. */
  private static final class Stamping implements Supplier<Map<ObjectKey, String>> {
    private final Collection<Service> services;
    private final Collection<EndpointSlice> slices;
    private Map<ObjectKey, String> stamps;

    Stamping(Collection<Service> services, Collection<EndpointSlice> slices) {
      this.services = services;
      this.slices = slices;
    }

    @Override
    public synchronized Map<ObjectKey, String> get() {
      if (stamps == null) {
        stamps = of(services, slices);
      }
      return stamps;
    }
  }

  /**
   * Every key's stamp: each Service's, and each Service name that only slices are labelled with.
   * Keys whose objects cannot be stamped map to null.
   */
  public static Map<ObjectKey, String> of(
      Collection<Service> services, Collection<EndpointSlice> slices) {
    var byService = new HashMap<ObjectKey, List<EndpointSlice>>(services.size() * 2);
    for (var slice : slices) {
      var key = serviceOf(slice);
      if (key != null) {
        byService.computeIfAbsent(key, k -> new ArrayList<>(1)).add(slice);
      }
    }
    var stamps = new HashMap<ObjectKey, String>(Math.max(16, byService.size() * 2));
    for (var service : services) {
      var metadata = service.getMetadata();
      if (metadata == null || metadata.getNamespace() == null || metadata.getName() == null) {
        continue;
      }
      var key = new ObjectKey(metadata.getNamespace(), metadata.getName());
      stamps.put(key, stamp(service, byService.getOrDefault(key, List.of())));
    }
    byService.forEach(
        (key, owned) -> {
          // Not computeIfAbsent: it would take a Service's null (unstampable) for no Service.
          if (!stamps.containsKey(key)) {
            stamps.put(key, stamp(null, owned));
          }
        });
    return stamps;
  }

  /**
   * One key's stamp from its Service (null when gone) and the slices labelled with its name; null
   * when nothing is left of it or an object cannot be stamped.
   */
  public static String stamp(Service service, Collection<EndpointSlice> slices) {
    if (service == null && slices.isEmpty()) {
      return null;
    }
    var out = new StringBuilder(16 + 32 * slices.size());
    if (service == null) {
      out.append('-');
    } else if (!appendVersion(service, out)) {
      return null;
    }
    var sorted = slices;
    if (slices.size() > 1) {
      var byName = new ArrayList<>(slices);
      byName.sort(Comparator.comparing(ObjectVersions::nameOf));
      sorted = byName;
    }
    for (var slice : sorted) {
      var name = nameOf(slice);
      if (!stampable(name)) {
        return null;
      }
      out.append(' ').append(name).append('=');
      if (!appendVersion(slice, out)) {
        return null;
      }
    }
    return out.toString();
  }

  /** The Service a slice belongs to, by its {@code kubernetes.io/service-name} label. */
  private static ObjectKey serviceOf(EndpointSlice slice) {
    var metadata = slice.getMetadata();
    if (metadata == null || metadata.getNamespace() == null || metadata.getLabels() == null) {
      return null;
    }
    var name = metadata.getLabels().get(Labels.SERVICE_NAME);
    return name == null || name.isEmpty() ? null : new ObjectKey(metadata.getNamespace(), name);
  }

  private static String nameOf(EndpointSlice slice) {
    var metadata = slice.getMetadata();
    var name = metadata == null ? null : metadata.getName();
    return name == null ? "" : name;
  }

  private static boolean appendVersion(HasMetadata object, StringBuilder out) {
    var metadata = object.getMetadata();
    var version = metadata == null ? null : metadata.getResourceVersion();
    if (!stampable(version)) {
      return false;
    }
    out.append(version);
    return true;
  }

  /**
   * A non-empty text without blanks, {@code =} or control characters, not starting with {@code -}
   * (which stands for no Service): one field of a stamp.
   */
  private static boolean stampable(String text) {
    if (text == null || text.isEmpty() || text.charAt(0) == '-') {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= ' ' || c == '=' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
