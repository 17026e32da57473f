package dev.proxima.proxy.explain;

import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.ZoneSpillLines;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders {@code explain --live}: the offline report's Service ports, for people exactly as {@link
 * ExplainReport} prints them, then the proxy's sync state and what it observed of the traffic.
 */
public final class LiveExplainReport {
  private LiveExplainReport() {}

  /** One JSON object: the node, the sync state, the observed locality, the Service ports. */
  public static String json(LiveExplain live) {
    var root = new LinkedHashMap<String, Object>();
    root.put("node", live.node());
    root.put("at", live.at().toString());
    root.put("service", live.service() == null ? null : live.service().toString());
    root.put("sync", sync(live));
    var locality = new LinkedHashMap<String, Object>();
    var notCounted = live.locality().notCountedBecause();
    locality.put("counted", notCounted == null);
    locality.put("reason", notCounted);
    root.put("observedLocality", locality);
    var rows = new ArrayList<Map<String, Object>>();
    for (var plan : live.plans()) {
      var planRows = ExplainReport.rows(plan);
      for (int i = 0; i < planRows.size(); i++) {
        var row = new LinkedHashMap<String, Object>();
        row.put("family", plan.family().apiName());
        row.putAll(planRows.get(i));
        // Jackson writes a record's components in order: local, sameZone, otherZones, unknown.
        row.put("observedLocality", live.locality().of(plan.ports().get(i).port().name()));
        rows.add(row);
      }
    }
    root.put("servicePorts", rows);
    root.put("servicePortsTotal", live.servicePortsTotal());
    root.put("truncated", live.truncated());
    return ExplainReport.write(root);
  }

  private static Map<String, Object> sync(LiveExplain live) {
    var sync = new LinkedHashMap<String, Object>();
    sync.put("informersSynced", live.informersSynced());
    sync.put("pendingChanges", live.pending());
    var families = new ArrayList<Map<String, Object>>();
    for (var state : live.sync()) {
      var family = new LinkedHashMap<String, Object>();
      family.put("family", state.family().apiName());
      family.put("lastFullSync", time(state.lastFullSync()));
      family.put("lastPartialSync", time(state.lastPartialSync()));
      family.put("rulesLoaded", state.rulesLoaded());
      family.put("servicePorts", state.servicePorts());
      family.put("failing", state.failing());
      Map<String, Object> error = null;
      if (state.lastError() != null) {
        error = new LinkedHashMap<>();
        error.put("message", state.lastError().message());
        error.put("at", time(state.lastError().at()));
      }
      family.put("lastError", error);
      family.put("waitingFor", state.waitingFor());
      family.put("localTraffic", state.localTraffic());
      families.add(family);
    }
    sync.put("families", families);
    return sync;
  }

  /** The offline report's text, then the cut, the sync state and the observed locality. */
  public static String text(LiveExplain live) {
    var out =
        new StringBuilder(ExplainReport.text(live.plans(), planned -> observed(live, planned)));
    if (live.truncated()) {
      out.append("\n... ")
          .append(live.servicePortsTotal() - live.servicePortsShown())
          .append(" more service ports not shown (at most ")
          .append(live.servicePortsShown())
          .append(" in one answer); ask for one Service with --service NAMESPACE/NAME\n");
    }
    if (live.service() != null && live.servicePortsTotal() == 0) {
      out.append("\nService ")
          .append(live.service())
          .append(" has no ports in this proxy's rules: it does not exist, another proxy")
          .append(" handles it, or it has no port this node programs");
      if (live.sync().stream().anyMatch(state -> state.waitingFor() != null)) {
        out.append(" (or its family has no plan yet: see what it waits for below)");
      }
      out.append("\n");
    }
    out.append("\nSync state of the proxy on ")
        .append(live.node())
        .append(" at ")
        .append(live.at())
        .append(":\n");
    field(out, "informers", live.informersSynced() ? "synced" : "not synced yet: no rules loaded");
    field(
        out,
        "pending changes",
        live.pending().services()
            + " Services, "
            + live.pending().endpointSlices()
            + " EndpointSlices");
    for (var state : live.sync()) {
      var name = state.family().apiName();
      field(
          out,
          name,
          "last full sync "
              + timeText(state.lastFullSync())
              + ", last partial sync "
              + timeText(state.lastPartialSync())
              + ", "
              + state.rulesLoaded()
              + " rule lines in the latest load, "
              + state.servicePorts()
              + " service ports"
              + (state.failing() ? "; FAILING: the kernel keeps the previous rules" : ""));
      if (state.waitingFor() != null) {
        field(out, name + " waits for", state.waitingFor());
      }
      if (state.localTraffic() != null) {
        field(out, name + " local traffic", state.localTraffic());
      }
      if (state.lastError() != null) {
        field(
            out,
            name + " last error",
            state.lastError().at()
                + ": "
                + state.lastError().message().replace("\n", "\n" + " ".repeat(22)));
      }
    }
    var notCounted = live.locality().notCountedBecause();
    field(out, "observed locality", notCounted == null ? "counted" : "not counted: " + notCounted);
    return out.toString();
  }

  private static List<String> observed(LiveExplain live, NodePlanner.PlannedPort planned) {
    if (live.locality().notCountedBecause() != null) {
      return List.of();
    }
    var counts = live.locality().of(planned.port().name());
    if (counts == null && planned.port().observeLocality()) {
      // Annotated already: only the series cap can leave it out.
      return List.of(
          "  observed:  not counted per Service: --observe-locality-max-series is reached (the"
              + " cap is shared round-robin across namespaces, then Services;"
              + " proxima_proxy_observed_service_ports_dropped)");
    }
    if (counts == null) {
      return List.of(
          "  observed:  not counted per Service (annotate the Service"
              + " proxima.dev/observe-locality: \"true\"; NodePort-only traffic is not counted)");
    }
    var line =
        "  observed:  "
            + counts.local()
            + " local, "
            + counts.sameZone()
            + " same zone, "
            + counts.otherZones()
            + " other zones, "
            + counts.unknown()
            + " zone unknown";
    if (counts.total() > 0) {
      line +=
          " ("
              + percent(counts.local(), counts.total())
              + " kept on the node, "
              + percent(counts.local() + counts.sameZone(), counts.total())
              + " in the zone)";
    }
    line += " since the proxy began counting it";
    if (planned.spill().active()) {
      line += "; zone spill-over keeps " + ZoneSpillLines.percent(planned) + " in-zone";
    }
    return List.of(line);
  }

  private static String percent(long part, long whole) {
    return Math.round(100.0 * part / whole) + "%";
  }

  private static void field(StringBuilder out, String label, String value) {
    out.append("  ").append(String.format("%-20s", label + ":")).append(value).append('\n');
  }

  private static String time(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  private static String timeText(Instant instant) {
    return instant == null ? "never" : instant.toString();
  }
}
