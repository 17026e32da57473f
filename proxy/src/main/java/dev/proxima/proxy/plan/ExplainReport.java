package dev.proxima.proxy.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.proxima.proxy.model.Endpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Renders the proxy's endpoint decisions for people ({@code -o text}) and for tools ({@code -o
 * json}): per Service port, which endpoints are used for cluster and local traffic, and why.
 */
public final class ExplainReport {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ExplainReport() {}

  /** One JSON object per Service port, with a list the Service does not use as null. */
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
      var row = new LinkedHashMap<String, Object>();
      row.put("service", port.name().service().toString());
      row.put("port", portLabel(planned));
      row.put("protocol", port.protocol().name());
      row.put("clusterEndpoints", addresses(selection.clusterEndpoints()));
      row.put("localEndpoints", addresses(selection.localEndpoints()));
      row.put("allReachableEndpoints", addresses(selection.allReachableEndpoints()));
      row.put("hasAnyEndpoints", selection.hasAnyEndpoints());
      row.put("topology", selection.topology().displayName());
      row.put("reason", selection.reason());
      row.put("addressCollisions", collisionsOf(plan, planned));
      rows.add(row);
    }
    return rows;
  }

  /** Indented JSON with a final newline. */
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
      out.append("Node ")
          .append(plan.nodeName())
          .append(" (zone ")
          .append(plan.nodeZone() == null ? "<none>" : plan.nodeZone())
          .append("), ")
          .append(plan.family().apiName())
          .append(": ")
          .append(plan.ports().size())
          .append(" service ports\n");
      for (var planned : plan.ports()) {
        var port = planned.port();
        var selection = planned.selection();
        out.append('\n')
            .append(port.name().service())
            .append(" port ")
            .append(portLabel(planned))
            .append('/')
            .append(port.protocol())
            .append("  trafficDistribution=")
            .append(port.trafficDistribution() == null ? "<none>" : port.trafficDistribution())
            .append("  topology=")
            .append(selection.topology().displayName())
            .append('\n');
        line(out, "cluster", selection.clusterEndpoints());
        line(out, "local", selection.localEndpoints());
        line(out, "reachable", selection.allReachableEndpoints());
        out.append("  why:       ").append(selection.reason()).append('\n');
        if (planned.fallback() != TopologyFallback.NONE) {
          out.append("  fallback:  ").append(planned.fallback().label()).append('\n');
        }
        for (var collision : collisionsOf(plan, planned)) {
          out.append("  collision: ").append(collision).append('\n');
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

  /** The address keys this port claims together with another port, and who keeps each. */
  private static List<String> collisionsOf(
      NodePlanner.FamilyPlan plan, NodePlanner.PlannedPort planned) {
    var name = planned.port().name();
    return plan.collisions().stream()
        .filter(c -> c.winner().equals(name) || c.loser().equals(name))
        .map(AddressOwners.Collision::toString)
        .toList();
  }

  private static void line(StringBuilder out, String label, List<Endpoint> endpoints) {
    out.append("  ").append(String.format("%-10s", label + ":")).append(' ');
    if (endpoints == null) {
      out.append("(not used)");
    } else if (endpoints.isEmpty()) {
      out.append("(none)");
    } else {
      out.append(String.join(", ", addresses(endpoints)));
    }
    out.append('\n');
  }

  private static String portLabel(NodePlanner.PlannedPort planned) {
    var name = planned.port().name().port();
    return name.isEmpty() ? String.valueOf(planned.port().port()) : name;
  }

  private static List<String> addresses(List<Endpoint> endpoints) {
    return endpoints == null ? null : endpoints.stream().map(Endpoint::address).toList();
  }
}
