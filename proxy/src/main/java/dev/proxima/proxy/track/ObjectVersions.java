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
   * The cache's Services and slices as a restart compares them with the stamps its saved ruleset
   * was planned from. Not thread-safe: one sync pass uses it.
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

    /** These objects' own stamps, made once for {@link #changedKeys}. */
    private Map<ObjectKey, String> stamps;

    public Snapshot(Collection<Service> services, Collection<EndpointSlice> slices) {
      this.services = services;
      this.slices = slices;
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
      var known = comparedBefore(saved);
      if (known.isPresent()) {
        return known.get();
      }
      boolean equal = servicesMatch(saved) && slicesMatch(saved);
      compared(saved, equal);
      return equal;
    }

    /**
     * Whether these objects matched {@code saved}, when they were compared with stamps equal to it
     * before: each family of a sync pass has its own saved stamps, and they are the same.
     */
    public Optional<Boolean> comparedBefore(Map<ObjectKey, String> saved) {
      return compared != null && compared.equals(saved)
          ? Optional.of(comparedEqual)
          : Optional.empty();
    }

    /**
     * These objects were compared with {@code saved}, as {@link #servicesMatch} and {@link
     * #slicesMatch} do, and {@code equal} says whether they matched.
     */
    public void compared(Map<ObjectKey, String> saved, boolean equal) {
      compared = saved;
      comparedEqual = equal;
    }

    /**
     * The Services' half of {@link #matches}: each Service starts its key's stamp, and there are as
     * many as the stamps name. It reads no slice, so the two halves can run side by side.
     */
    public boolean servicesMatch(Map<ObjectKey, String> saved) {
      int savedServices = 0;
      for (var stamp : saved.values()) {
        if (stamp == null || stamp.isEmpty()) {
          return false;
        }
        if (stamp.charAt(0) != '-') {
          savedServices++;
        }
      }
      int services = 0;
      for (var service : this.services) {
        var metadata = service.getMetadata();
        if (metadata == null || metadata.getNamespace() == null || metadata.getName() == null) {
          continue;
        }
        var stamp = saved.get(new ObjectKey(metadata.getNamespace(), metadata.getName()));
        var version = metadata.getResourceVersion();
        if (stamp == null || !stampable(version) || !fieldAt(stamp, 0, version)) {
          return false;
        }
        services++;
      }
      return services == savedServices;
    }

    /**
     * The slices' half of {@link #matches}: each slice stands in its key's stamp by name, and there
     * are as many as the stamps name.
     */
    public boolean slicesMatch(Map<ObjectKey, String> saved) {
      int savedSlices = 0;
      for (var stamp : saved.values()) {
        if (stamp == null) {
          return false;
        }
        for (int i = stamp.indexOf(' '); i >= 0; i = stamp.indexOf(' ', i + 1)) {
          savedSlices++;
        }
      }
      int slices = 0;
      // A stamp naming many slices is read into a map once: scanning it for each of its slices
      // would cost its length times their number, which a tenant chooses.
      var manySlices = new HashMap<ObjectKey, Map<String, String>>();
      for (var slice : this.slices) {
        var key = serviceOf(slice);
        if (key == null) {
          continue;
        }
        var stamp = saved.get(key);
        if (stamp == null) {
          return false;
        }
        boolean found =
            stamp.length() <= SCANNED_STAMP_LENGTH
                ? sliceIn(stamp, slice)
                : sliceIn(manySlices.computeIfAbsent(key, k -> slicesOf(stamp)), slice);
        if (!found) {
          return false;
        }
        slices++;
      }
      return slices == savedSlices;
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
      if (stamps == null) {
        stamps = of(services, slices);
      }
      var now = stamps;
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
