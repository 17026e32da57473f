package dev.proxima.proxy.informers;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.model.cache.CachedObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the proxy keeps of the Services, EndpointSlices and Nodes it caches: the fields its rules,
 * explain output and latency metric read, compacted. It never writes them back, so the rest is
 * dropped as it arrives.
 */
public final class ProxyCacheTrim {
  private ProxyCacheTrim() {}

  /** One per combination of ready, serving and terminating (27 at most); nothing writes them. */
  private static final Map<List<Boolean>, EndpointConditions> CONDITIONS =
      new ConcurrentHashMap<>();

  /**
   * Stands in for a trimmed object's empty map of unknown fields: equal to any empty map, its
   * identity says the object needs no second trim when the informer caches it after decoding.
   */
  private static final Map<String, Object> TRIMMED = Collections.unmodifiableMap(new HashMap<>(0));

  /** Trims a Service in place, keeping only the proxy's opt-ins among its annotations. */
  public static void service(Service service) {
    if (service.getAdditionalProperties() == TRIMMED) {
      return;
    }
    var metadata = service.getMetadata();
    dropBookkeeping(metadata);
    if (metadata != null) {
      metadata.setAnnotations(keptAnnotations(metadata.getAnnotations()));
    }
    if (service.getStatus() != null) {
      service.getStatus().setConditions(Collections.emptyList());
    }
    CachedObjects.compact(service);
    if (hasNoUnknownFields(service.getAdditionalProperties())) {
      service.setAdditionalProperties(TRIMMED);
    }
  }

  /** Trims an EndpointSlice in place, keeping the annotation network programming latency reads. */
  public static void slice(EndpointSlice slice) {
    if (slice.getAdditionalProperties() == TRIMMED) {
      return;
    }
    var metadata = slice.getMetadata();
    dropBookkeeping(metadata);
    if (metadata != null && metadata.getAnnotations() != null) {
      var trigger = metadata.getAnnotations().get(Annotations.LAST_CHANGE_TRIGGER_TIME);
      metadata.setAnnotations(
          trigger == null
              ? Collections.emptyMap()
              : Map.of(Annotations.LAST_CHANGE_TRIGGER_TIME, trigger));
    }
    if (slice.getEndpoints() != null) {
      for (var endpoint : slice.getEndpoints()) {
        endpoint.setTargetRef(null);
        endpoint.setHostname(null);
        endpoint.setConditions(shared(endpoint.getConditions()));
      }
    }
    CachedObjects.compact(slice);
    if (hasNoUnknownFields(slice.getAdditionalProperties())) {
      slice.setAdditionalProperties(TRIMMED);
    }
  }

  /**
   * Trims a Node in place to its name, deletion time, zone label, pod CIDRs, taints and addresses:
   * the proxy caches every Node, and a Node's images list alone is often several KiB.
   */
  public static void node(Node node) {
    if (node.getAdditionalProperties() == TRIMMED) {
      return;
    }
    var metadata = node.getMetadata();
    dropBookkeeping(metadata);
    if (metadata != null) {
      var zone = metadata.getLabels() == null ? null : metadata.getLabels().get(Labels.ZONE);
      metadata.setLabels(zone == null ? Collections.emptyMap() : Map.of(Labels.ZONE, zone));
      metadata.setAnnotations(Collections.emptyMap());
      metadata.setFinalizers(Collections.emptyList());
    }
    var spec = node.getSpec();
    if (spec != null) {
      var kept = new NodeSpec();
      kept.setPodCIDR(spec.getPodCIDR());
      kept.setPodCIDRs(spec.getPodCIDRs());
      kept.setTaints(spec.getTaints());
      node.setSpec(kept);
    }
    var status = node.getStatus();
    if (status != null) {
      var kept = new NodeStatus();
      kept.setAddresses(status.getAddresses());
      node.setStatus(kept);
    }
    if (hasNoUnknownFields(node.getAdditionalProperties())) {
      node.setAdditionalProperties(TRIMMED);
    }
  }

  private static Map<String, String> keptAnnotations(Map<String, String> annotations) {
    if (annotations == null || annotations.isEmpty()) {
      return Collections.emptyMap();
    }
    Map<String, String> kept = new HashMap<>(2);
    if (Annotations.observesLocality(annotations)) {
      kept.put(Annotations.OBSERVE_LOCALITY, "true");
    }
    for (var key : List.of(Annotations.ZONE_SPILL_OVER, Annotations.ZONE_SPILL_OVER_TOLERANCE)) {
      var value = annotations.get(key);
      if (value != null) {
        // Parsing reads at most a few characters; a long value is kept only as far as it shows.
        kept.put(key, value.length() > 64 ? value.substring(0, 64) : value);
      }
    }
    return kept.isEmpty() ? Collections.emptyMap() : Map.copyOf(kept);
  }

  /** The shared conditions equal to {@code conditions}; itself when it has unknown fields. */
  private static EndpointConditions shared(EndpointConditions conditions) {
    if (conditions == null
        || (conditions.getAdditionalProperties() != null
            && !conditions.getAdditionalProperties().isEmpty())) {
      return conditions;
    }
    // Arrays.asList, unlike List.of, takes the unset (null) ones.
    var key =
        Arrays.asList(conditions.getReady(), conditions.getServing(), conditions.getTerminating());
    return CONDITIONS.computeIfAbsent(
        key, k -> new EndpointConditions(k.get(0), k.get(1), k.get(2)));
  }

  /** A map of unknown fields the marker can stand in for without losing any. */
  private static boolean hasNoUnknownFields(Map<String, Object> unknown) {
    return unknown == null || unknown.isEmpty();
  }

  private static void dropBookkeeping(ObjectMeta metadata) {
    if (metadata == null) {
      return;
    }
    metadata.setManagedFields(Collections.emptyList());
    metadata.setOwnerReferences(Collections.emptyList());
  }
}
