package dev.proxima.model.cache;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Shrinks objects an informer is about to cache, without changing what they mean: equal before and
 * after, serialized to the same JSON, copied by their builders into fully mutable objects.
 *
 * <p>Why: every fabric8 model object carries its own empty {@code LinkedHashMap} for unknown
 * fields, and its empty lists and maps are separate instances too; a deserialized endpoint's
 * address list has room for ten; and the zone, node name and label keys every endpoint repeats are
 * separate strings per object. At 10,000 Services × 10 endpoints that is tens of MiB of a node
 * agent's memory. Empty containers become one shared immutable instance, lists are sized to what
 * they hold, and the strings that repeat across a cluster are interned.
 *
 * <p>The objects are changed in place, so the informer's handlers see the same instance it caches.
 * Callers must treat cached objects as read-only, which they already must for informer caches;
 * copies made with the model's builders are ordinary mutable objects.
 */
public final class CachedObjects {
  private CachedObjects() {}

  /** Compacts a Service in place and returns it. */
  public static Service compact(Service service) {
    if (service == null) {
      return null;
    }
    service.setApiVersion(intern(service.getApiVersion()));
    service.setKind(intern(service.getKind()));
    service.setAdditionalProperties(empty(service.getAdditionalProperties()));
    compact(service.getMetadata());
    var spec = service.getSpec();
    if (spec != null) {
      spec.setAdditionalProperties(empty(spec.getAdditionalProperties()));
      spec.setClusterIPs(sized(spec.getClusterIPs()));
      spec.setExternalIPs(sized(spec.getExternalIPs()));
      spec.setIpFamilies(internAll(spec.getIpFamilies()));
      spec.setLoadBalancerSourceRanges(sized(spec.getLoadBalancerSourceRanges()));
      spec.setSelector(empty(spec.getSelector()));
      spec.setType(intern(spec.getType()));
      spec.setIpFamilyPolicy(intern(spec.getIpFamilyPolicy()));
      spec.setSessionAffinity(intern(spec.getSessionAffinity()));
      spec.setInternalTrafficPolicy(intern(spec.getInternalTrafficPolicy()));
      spec.setExternalTrafficPolicy(intern(spec.getExternalTrafficPolicy()));
      spec.setTrafficDistribution(intern(spec.getTrafficDistribution()));
      spec.setPorts(sized(spec.getPorts()));
      if (spec.getPorts() != null) {
        for (var port : spec.getPorts()) {
          port.setAdditionalProperties(empty(port.getAdditionalProperties()));
          port.setName(intern(port.getName()));
          port.setProtocol(intern(port.getProtocol()));
          port.setAppProtocol(intern(port.getAppProtocol()));
        }
      }
    }
    var status = service.getStatus();
    if (status != null) {
      status.setAdditionalProperties(empty(status.getAdditionalProperties()));
      status.setConditions(sized(status.getConditions()));
      var loadBalancer = status.getLoadBalancer();
      if (loadBalancer != null) {
        loadBalancer.setAdditionalProperties(empty(loadBalancer.getAdditionalProperties()));
        loadBalancer.setIngress(sized(loadBalancer.getIngress()));
      }
    }
    return service;
  }

  /** Compacts an EndpointSlice in place and returns it. */
  public static EndpointSlice compact(EndpointSlice slice) {
    if (slice == null) {
      return null;
    }
    slice.setApiVersion(intern(slice.getApiVersion()));
    slice.setKind(intern(slice.getKind()));
    slice.setAddressType(intern(slice.getAddressType()));
    slice.setAdditionalProperties(empty(slice.getAdditionalProperties()));
    compact(slice.getMetadata());
    slice.setPorts(sized(slice.getPorts()));
    if (slice.getPorts() != null) {
      for (var port : slice.getPorts()) {
        port.setAdditionalProperties(empty(port.getAdditionalProperties()));
        port.setName(intern(port.getName()));
        port.setProtocol(intern(port.getProtocol()));
        port.setAppProtocol(intern(port.getAppProtocol()));
      }
    }
    slice.setEndpoints(sized(slice.getEndpoints()));
    if (slice.getEndpoints() != null) {
      for (var endpoint : slice.getEndpoints()) {
        endpoint.setAdditionalProperties(empty(endpoint.getAdditionalProperties()));
        endpoint.setAddresses(sized(endpoint.getAddresses()));
        endpoint.setDeprecatedTopology(empty(endpoint.getDeprecatedTopology()));
        endpoint.setZone(intern(endpoint.getZone()));
        endpoint.setNodeName(intern(endpoint.getNodeName()));
        var conditions = endpoint.getConditions();
        if (conditions != null) {
          conditions.setAdditionalProperties(empty(conditions.getAdditionalProperties()));
        }
        var hints = endpoint.getHints();
        if (hints != null) {
          hints.setAdditionalProperties(empty(hints.getAdditionalProperties()));
          hints.setForZones(sized(hints.getForZones()));
          hints.setForNodes(sized(hints.getForNodes()));
          if (hints.getForZones() != null) {
            for (var zone : hints.getForZones()) {
              zone.setAdditionalProperties(empty(zone.getAdditionalProperties()));
              zone.setName(intern(zone.getName()));
            }
          }
          if (hints.getForNodes() != null) {
            for (var node : hints.getForNodes()) {
              node.setAdditionalProperties(empty(node.getAdditionalProperties()));
              node.setName(intern(node.getName()));
            }
          }
        }
        var target = endpoint.getTargetRef();
        if (target != null) {
          target.setAdditionalProperties(empty(target.getAdditionalProperties()));
          target.setKind(intern(target.getKind()));
          target.setNamespace(intern(target.getNamespace()));
        }
      }
    }
    return slice;
  }

  private static void compact(ObjectMeta metadata) {
    if (metadata == null) {
      return;
    }
    metadata.setAdditionalProperties(empty(metadata.getAdditionalProperties()));
    metadata.setNamespace(intern(metadata.getNamespace()));
    metadata.setLabels(internedKeys(metadata.getLabels()));
    metadata.setAnnotations(internedKeys(metadata.getAnnotations()));
    metadata.setFinalizers(sized(metadata.getFinalizers()));
    metadata.setManagedFields(sized(metadata.getManagedFields()));
    metadata.setOwnerReferences(sized(metadata.getOwnerReferences()));
  }

  /**
   * Label and annotation keys repeat on every object; values are mostly distinct (names), except
   * the few well-known ones, which interning also catches cheaply because they are short.
   */
  private static Map<String, String> internedKeys(Map<String, String> map) {
    if (map == null || map.isEmpty()) {
      return empty(map);
    }
    var interned = new java.util.LinkedHashMap<String, String>(map.size() * 4 / 3 + 1);
    map.forEach(
        (key, value) ->
            interned.put(
                intern(key), value != null && value.length() <= 32 ? intern(value) : value));
    return interned;
  }

  private static <K, V> Map<K, V> empty(Map<K, V> map) {
    return map != null && map.isEmpty() ? Collections.emptyMap() : map;
  }

  /** Empty lists become the shared empty list; others lose the spare room deserializing left. */
  private static <T> List<T> sized(List<T> list) {
    if (list == null) {
      return null;
    }
    if (list.isEmpty()) {
      return Collections.emptyList();
    }
    if (list instanceof ArrayList<T> arrayList) {
      arrayList.trimToSize();
    }
    return list;
  }

  private static List<String> internAll(List<String> list) {
    var sized = sized(list);
    if (sized == null || sized.isEmpty()) {
      return sized;
    }
    sized.replaceAll(CachedObjects::intern);
    return sized;
  }

  private static String intern(String value) {
    return value == null ? null : value.intern();
  }
}
