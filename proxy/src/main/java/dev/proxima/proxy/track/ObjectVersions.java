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

  /** A non-empty text without blanks, {@code =} or control characters: one field of a stamp. */
  private static boolean stampable(String text) {
    if (text == null || text.isEmpty()) {
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
