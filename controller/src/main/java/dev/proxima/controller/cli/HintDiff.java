package dev.proxima.controller.cli;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** {@code plan --diff}: the slices whose hints a plan changes, endpoint by endpoint. */
final class HintDiff {
  private HintDiff() {}

  /** Each slice's endpoints' hints in words, keyed by namespace/name, before planning. */
  static Map<String, List<String>> snapshot(List<EndpointSlice> slices) {
    var hints = new LinkedHashMap<String, List<String>>();
    slices.forEach(slice -> hints.put(key(slice), hintsOf(slice)));
    return hints;
  }

  static String text(
      Map<String, List<String>> before, List<EndpointSlice> after, List<String> events) {
    var out = new StringBuilder();
    int changed = 0;
    for (var slice : after) {
      var old = before.getOrDefault(key(slice), List.of());
      var now = hintsOf(slice);
      if (old.equals(now)) {
        continue;
      }
      changed++;
      out.append("EndpointSlice ").append(key(slice));
      var service = service(slice);
      if (service != null) {
        out.append(" (Service ").append(slice.getMetadata().getNamespace()).append('/');
        out.append(service).append(')');
      }
      out.append('\n');
      var endpoints = endpoints(slice);
      int unchanged = 0;
      for (int i = 0; i < Math.max(old.size(), now.size()); i++) {
        var was = i < old.size() ? old.get(i) : "-";
        var will = i < now.size() ? now.get(i) : "-";
        if (was.equals(will)) {
          unchanged++;
          continue;
        }
        out.append("  ")
            .append(i < endpoints.size() ? describe(endpoints.get(i)) : "endpoint " + i)
            .append(": ")
            .append(was)
            .append(" -> ")
            .append(will)
            .append('\n');
      }
      if (unchanged > 0) {
        out.append("  (").append(unchanged).append(" more endpoints unchanged)\n");
      }
    }
    out.append(changed)
        .append(" of ")
        .append(after.size())
        .append(" EndpointSlices would change.\n");
    events.forEach(event -> out.append("event: ").append(event).append('\n'));
    return out.toString();
  }

  private static List<Endpoint> endpoints(EndpointSlice slice) {
    return slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
  }

  private static List<String> hintsOf(EndpointSlice slice) {
    var hints = new ArrayList<String>();
    endpoints(slice).forEach(endpoint -> hints.add(hints(endpoint.getHints())));
    return hints;
  }

  private static String hints(EndpointHints hints) {
    if (hints == null) {
      return "<no hints>";
    }
    var parts = new ArrayList<String>();
    if (hints.getForZones() != null && !hints.getForZones().isEmpty()) {
      parts.add(
          "forZones="
              + hints.getForZones().stream().map(zone -> String.valueOf(zone.getName())).toList());
    }
    if (hints.getForNodes() != null && !hints.getForNodes().isEmpty()) {
      parts.add(
          "forNodes="
              + hints.getForNodes().stream().map(node -> String.valueOf(node.getName())).toList());
    }
    return parts.isEmpty() ? "<no hints>" : String.join(" ", parts);
  }

  private static String describe(Endpoint endpoint) {
    var address =
        endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()
            ? "?"
            : endpoint.getAddresses().get(0);
    return address
        + " ("
        + Objects.requireNonNullElse(endpoint.getNodeName(), "<no node>")
        + ", "
        + Objects.requireNonNullElse(endpoint.getZone(), "<no zone>")
        + ")";
  }

  private static String key(EndpointSlice slice) {
    return slice.getMetadata().getNamespace() + "/" + slice.getMetadata().getName();
  }

  private static String service(EndpointSlice slice) {
    var labels = slice.getMetadata().getLabels();
    return labels == null ? null : labels.get(dev.proxima.model.Labels.SERVICE_NAME);
  }
}
