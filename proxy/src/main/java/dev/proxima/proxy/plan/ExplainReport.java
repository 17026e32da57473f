package dev.proxima.proxy.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.route.Verdict;
import dev.proxima.proxy.selection.TopologyLevel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Renders the proxy's endpoint decisions for people ({@code -o text}) and for tools ({@code -o
 * json}): per Service port, the addresses that lead to it, per traffic source the endpoints it
 * reaches or why it is dropped, the two policies' endpoint lists, and why.
 */
public final class ExplainReport {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ExplainReport() {}

  /**
   * One JSON object per Service port, with a list the Service does not use as null and a list it
   * uses but that holds nothing as empty.
   */
  public static String json(List<NodePlanner.FamilyPlan> plans) {
    var rows = new ArrayList<Map<String, Object>>();
    plans.forEach(plan -> rows.addAll(rows(plan)));
    return write(rows);
  }

  /** The JSON objects of one family's Service ports, in order, as {@link #json} prints them. */
  public static List<Map<String, Object>> rows(NodePlanner.FamilyPlan plan) {
    var rows = new ArrayList<Map<String, Object>>();
    for (var planned : plan.ports()) {
      var port = planned.port();
      var selection = planned.selection();
      var paths = TrafficPaths.of(plan.family(), planned);
      var row = new LinkedHashMap<String, Object>();
      row.put("service", port.name().service().toString());
      row.put("port", portLabel(planned));
      row.put("protocol", port.protocol().name());
      row.put("addresses", addressesJson(paths.addresses()));
      row.put("traffic", paths.paths().stream().map(ExplainReport::pathJson).toList());
      row.put("clusterPolicyEndpoints", addresses(clusterList(planned)));
      row.put("localPolicyEndpoints", addresses(localList(planned)));
      row.put("allReachableEndpoints", addresses(selection.allReachableEndpoints()));
      row.put("hasAnyEndpoints", selection.hasAnyEndpoints());
      row.put("topology", selection.topology().displayName());
      row.put(
          "fallback",
          planned.fallback() == TopologyFallback.NONE ? null : planned.fallback().label());
      row.put("reason", selection.reason());
      if (ZoneSpillLines.asked(planned)) {
        row.put("zoneSpillOver", ZoneSpillLines.json(planned));
      }
      row.put("addressCollisions", collisionsOf(plan, planned));
      rows.add(row);
    }
    return rows;
  }

  private static Map<String, Object> addressesJson(TrafficPaths.Addresses addresses) {
    var json = new LinkedHashMap<String, Object>();
    json.put("clusterIP", addresses.clusterIp());
    json.put("port", addresses.port());
    json.put("nodePort", addresses.nodePort() == 0 ? null : addresses.nodePort());
    json.put("loadBalancerIPs", addresses.loadBalancerIps());
    json.put("externalIPs", addresses.externalIps());
    json.put(
        "healthCheckNodePort",
        addresses.healthCheckNodePort() == 0 ? null : addresses.healthCheckNodePort());
    json.put("loadBalancerSourceRanges", addresses.firewall() ? addresses.sourceRanges() : null);
    return json;
  }

  private static Map<String, Object> pathJson(TrafficPaths.Path path) {
    var json = new LinkedHashMap<String, Object>();
    json.put("from", path.source().jsonName());
    json.put("to", path.to());
    json.put("policy", path.policy());
    json.put("verdict", verdictName(path.verdict()));
    json.put("endpoints", addresses(path.endpoints()));
    json.put("why", path.why());
    return json;
  }

  private static String verdictName(Verdict verdict) {
    return switch (verdict) {
      case CLUSTER_ENDPOINTS -> "clusterPolicyEndpoints";
      case LOCAL_ENDPOINTS -> "localPolicyEndpoints";
      case DROP -> "dropped";
      case REJECT -> "rejected";
    };
  }

  /**
   * A policy's list: null when the port never uses it, empty when it is used and holds nothing (the
   * selection gives null for both).
   */
  private static List<Endpoint> policyList(boolean used, List<Endpoint> list) {
    return !used ? null : list == null ? List.of() : list;
  }

  private static List<Endpoint> clusterList(NodePlanner.PlannedPort planned) {
    return policyList(
        planned.port().usesClusterEndpoints(), planned.selection().clusterEndpoints());
  }

  private static List<Endpoint> localList(NodePlanner.PlannedPort planned) {
    return policyList(planned.port().usesLocalEndpoints(), planned.selection().localEndpoints());
  }

  public static String write(Object value) {
    try {
      return JSON.writeValueAsString(value) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /** A block per Service port, then the skipped Services and input warnings. */
  public static String text(List<NodePlanner.FamilyPlan> plans) {
    return text(plans, planned -> List.of());
  }

  /**
   * {@link #text(List)} with more lines under each Service port, e.g. what the live proxy observed
   * of its traffic.
   *
   * @param moreLines each Service port's extra lines, already indented, without newlines
   */
  public static String text(
      List<NodePlanner.FamilyPlan> plans,
      Function<NodePlanner.PlannedPort, List<String>> moreLines) {
    var out = new StringBuilder();
    for (var plan : plans) {
      out.append(
          "Node %s (zone %s), %s: %s service ports\n"
              .formatted(
                  plan.nodeName(),
                  plan.nodeZone() == null ? "<none>" : plan.nodeZone(),
                  plan.family().apiName(),
                  plan.ports().size()));
      for (var planned : plan.ports()) {
        var port = planned.port();
        var selection = planned.selection();
        out.append(
            "\n%s port %s/%s  trafficDistribution=%s  topology=%s\n"
                .formatted(
                    port.name().service(),
                    portLabel(planned),
                    port.protocol(),
                    port.trafficDistribution() == null ? "<none>" : port.trafficDistribution(),
                    selection.topology().displayName()));
        var paths = TrafficPaths.of(plan.family(), planned);
        field(
            out,
            "addresses",
            paths.addresses().phrases().isEmpty()
                ? "(none of this family)"
                : String.join(", ", paths.addresses().phrases()));
        if (paths.addresses().firewall()) {
          field(
              out,
              "LB sources",
              paths.addresses().sourceRanges().isEmpty()
                  ? "none may connect (no usable loadBalancerSourceRanges)"
                  : "only " + String.join(", ", paths.addresses().sourceRanges()) + " may connect");
        }
        for (var path : paths.paths()) {
          out.append(
              "  %s -> %s (%s)\n    -> %s\n"
                  .formatted(
                      path.source().who(),
                      String.join(", ", path.to()),
                      path.policyPhrase(),
                      path.lost()
                          ? path.why()
                          : String.join(", ", addresses(path.endpoints()))
                              + " ("
                              + path.why()
                              + ")"));
        }
        list(
            out,
            "Cluster policy",
            clusterList(planned),
            "not used: internalTrafficPolicy Local without external access",
            "none",
            selection.topology() == TopologyLevel.NONE
                ? ""
                : " (filtered by topology: " + selection.topology().displayName() + ")");
        list(out, "Local policy", localList(planned), "not used", "none on this node", "");
        list(out, "reachable", selection.allReachableEndpoints(), "", "none", "");
        field(out, "why", selection.reason());
        if (ZoneSpillLines.asked(planned)) {
          field(out, "spill-over", planned.spill().why());
        }
        if (planned.fallback() != TopologyFallback.NONE) {
          field(out, "fallback", planned.fallback().label());
        }
        for (var collision : collisionsOf(plan, planned)) {
          field(out, "collision", collision);
        }
        moreLines.apply(planned).forEach(line -> out.append(line).append('\n'));
      }
      plan.skipped().forEach(skipped -> out.append("\nskipped: ").append(skipped));
      // Grouped by object and reason: a slice of 10,000 bad endpoints is one line.
      PlanWarnings.lines(plan.warnings())
          .forEach(warning -> out.append("\nwarning: ").append(warning));
      if (!plan.skipped().isEmpty() || !plan.warnings().isEmpty()) {
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static List<String> collisionsOf(
      NodePlanner.FamilyPlan plan, NodePlanner.PlannedPort planned) {
    var name = planned.port().name();
    return plan.collisions().stream()
        .filter(c -> c.winner().equals(name) || c.loser().equals(name))
        .map(AddressOwners.Collision::toString)
        .toList();
  }

  private static void list(
      StringBuilder out,
      String label,
      List<Endpoint> endpoints,
      String unused,
      String empty,
      String suffix) {
    if (endpoints == null) {
      field(out, label, "(" + unused + ")");
    } else if (endpoints.isEmpty()) {
      field(out, label, "(" + empty + ")");
    } else {
      field(out, label, String.join(", ", addresses(endpoints)) + suffix);
    }
  }

  /** One labelled line: the label and its colon padded to a column, then the value. */
  private static void field(StringBuilder out, String label, String value) {
    out.append("  ").append(String.format("%-16s", label + ":")).append(value).append('\n');
  }

  private static String portLabel(NodePlanner.PlannedPort planned) {
    var name = planned.port().name().port();
    return name.isEmpty() ? String.valueOf(planned.port().port()) : name;
  }

  private static List<String> addresses(List<Endpoint> endpoints) {
    return endpoints == null ? null : endpoints.stream().map(Endpoint::address).toList();
  }
}
