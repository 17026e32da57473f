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
 * its explain output and its latency metric read, compacted. The proxy never writes these objects
 * back, so the rest (managed fields, owner references, target references, most annotations) is
 * dropped as it arrives; on a real cluster managed fields alone are often the largest part of an
 * object.
 */
public final class ProxyCacheTrim {
  private ProxyCacheTrim() {}

  /**
   * One conditions object per combination of ready, serving and terminating (each true, false or
   * unset: 27 at most), shared by every cached endpoint that has it. Nothing writes cached objects,
   * so sharing is safe.
   */
  private static final Map<List<Boolean>, EndpointConditions> CONDITIONS =
      new ConcurrentHashMap<>();

  /**
   * Put in place of a trimmed object's own (empty) map of unknown fields: an empty map like any
   * other, equal to one and serialized the same, whose identity says the object needs no second
   * trim. Objects are trimmed as they are decoded ({@code TrimOnDecode}) and again when the
   * informer caches them, where a second pass would intern every zone and node name again.
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
   * Trims a Node in place to what the proxy reads: its name, deletion time and zone label, its pod
   * CIDRs and taints (the own Node's rules and /healthz), and its addresses (every Node's, which no
   * Service may take). Images, conditions, capacity and the rest go: the proxy caches every Node of
   * the cluster, and a Node's images list alone is often several KiB.
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
