package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * What a real API server fills in on a new Service and the mock does not: a ClusterIP from the
 * Service range, the single-stack IPv4 family, and each port's protocol and target port. Without
 * them a Service created with kubectl would have no address for the proxies to program.
 */
final class ServiceDefaults {
  private static final String RANGE = "10.96.";

  private ServiceDefaults() {}

  /** Fills in {@code service}'s defaults; {@code taken} are the ClusterIPs already in use. */
  static void apply(ObjectNode service, Set<String> taken) {
    var spec = service.with("spec");
    if (!spec.hasNonNull("type")) {
      spec.put("type", "ClusterIP");
    }
    if (!spec.hasNonNull("sessionAffinity")) {
      spec.put("sessionAffinity", "None");
    }
    var type = spec.get("type").asText();
    if (!type.equals("ExternalName") && !spec.hasNonNull("clusterIP")) {
      spec.put("clusterIP", free(taken));
    }
    var clusterIp = spec.path("clusterIP").asText("");
    if (!clusterIp.isEmpty() && !clusterIp.equals("None") && !spec.has("clusterIPs")) {
      spec.putArray("clusterIPs").add(clusterIp);
    }
    if (!type.equals("ExternalName") && !spec.has("ipFamilies")) {
      spec.putArray("ipFamilies").add(clusterIp.contains(":") ? "IPv6" : "IPv4");
      spec.put("ipFamilyPolicy", "SingleStack");
    }
    for (JsonNode port : spec.path("ports")) {
      if (port instanceof ObjectNode portMap) {
        if (!portMap.hasNonNull("protocol")) {
          portMap.put("protocol", "TCP");
        }
        if (!portMap.hasNonNull("targetPort") && portMap.has("port")) {
          portMap.set("targetPort", portMap.get("port"));
        }
      }
    }
  }

  private static String free(Set<String> taken) {
    for (int i = 100; i < 65_000; i++) {
      var candidate = RANGE + (i / 256) + "." + (i % 256);
      if (i % 256 != 0 && !taken.contains(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("the demo's Service range 10.96.0.0/16 is full");
  }
}
