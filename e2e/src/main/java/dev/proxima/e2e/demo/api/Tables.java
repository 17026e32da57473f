package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The server-side printing {@code kubectl get} asks for (a meta.k8s.io Table): the columns an
 * operator expects for Nodes, Services, EndpointSlices and Events, with the zone, the
 * trafficDistribution and the hints as the wide columns, since those are what Proxima acts on.
 * Other kinds get a name and an age.
 */
final class Tables {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock CLOCK = Clock.systemUTC();

  private record Column(String name, String type, int priority, Function<JsonNode, String> cell) {}

  private Tables() {}

  /** Whether the Accept header asks for a Table (kubectl get does, with JSON as the fallback). */
  static boolean wanted(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /** The object or list in {@code response} as a Table; errors and watches pass unchanged. */
  static MockResponse convert(MockResponse response, Optional<ApiResource> resource) {
    if (response.code() != 200 || resource.isEmpty()) {
      return response;
    }
    try {
      var document = JSON.readTree(KubectlDispatcher.text(response.getBody()));
      var items = new ArrayList<JsonNode>();
      if (document.has("items")) {
        document.path("items").forEach(items::add);
      } else {
        items.add(document);
      }
      return KubectlDispatcher.json(200, table(resource.get().kind(), items, document));
    } catch (JsonProcessingException notJson) {
      return response;
    }
  }

  private static ObjectNode table(String kind, List<JsonNode> items, JsonNode document) {
    var columns = columns(kind);
    var table = JSON.createObjectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
    table
        .putObject("metadata")
        .put("resourceVersion", document.path("metadata").path("resourceVersion").asText(""));
    var definitions = table.putArray("columnDefinitions");
    for (var column : columns) {
      definitions
          .addObject()
          .put("name", column.name())
          .put("type", column.type())
          .put("format", column.name().equals("Name") ? "name" : "")
          .put("description", column.name())
          .put("priority", column.priority());
    }
    var rows = table.putArray("rows");
    for (var item : items) {
      var row = rows.addObject();
      var cells = row.putArray("cells");
      columns.forEach(column -> cells.add(column.cell().apply(item)));
      row.set("object", item);
    }
    return table;
  }

  private static List<Column> columns(String kind) {
    var name = new Column("Name", "string", 0, o -> text(o, "metadata.name"));
    var age = new Column("Age", "string", 0, o -> age(text(o, "metadata.creationTimestamp")));
    return switch (kind) {
      case "Node" ->
          List.of(
              name,
              new Column("Status", "string", 0, Tables::nodeStatus),
              new Column("Roles", "string", 0, o -> "<none>"),
              age,
              new Column("Version", "string", 0, o -> text(o, "status.nodeInfo.kubeletVersion")),
              new Column("Internal-IP", "string", 1, Tables::internalIp),
              new Column(
                  "Zone",
                  "string",
                  1,
                  o ->
                      o.path("metadata")
                          .path("labels")
                          .path("topology.kubernetes.io/zone")
                          .asText("<none>")));
      case "Service" ->
          List.of(
              name,
              new Column("Type", "string", 0, o -> text(o, "spec.type")),
              new Column("Cluster-IP", "string", 0, o -> orNone(text(o, "spec.clusterIP"))),
              new Column("External-IP", "string", 0, Tables::externalIps),
              new Column("Port(s)", "string", 0, Tables::servicePorts),
              age,
              new Column("Selector", "string", 1, o -> pairs(o.path("spec").path("selector"))),
              new Column(
                  "Traffic-Distribution",
                  "string",
                  1,
                  o -> orNone(text(o, "spec.trafficDistribution"))));
      case "EndpointSlice" ->
          List.of(
              name,
              new Column("AddressType", "string", 0, o -> text(o, "addressType")),
              new Column("Ports", "string", 0, Tables::slicePorts),
              new Column("Endpoints", "string", 0, Tables::sliceAddresses),
              age,
              new Column(
                  "Service",
                  "string",
                  1,
                  o ->
                      o.path("metadata")
                          .path("labels")
                          .path("kubernetes.io/service-name")
                          .asText("<none>")),
              new Column("Hints", "string", 1, Tables::sliceHints));
      case "Event" ->
          List.of(
              new Column("Last Seen", "string", 0, Tables::eventLastSeen),
              new Column("Type", "string", 0, o -> text(o, "type")),
              new Column("Reason", "string", 0, o -> text(o, "reason")),
              new Column(
                  "Object",
                  "string",
                  0,
                  o ->
                      text(o, "involvedObject.kind").toLowerCase()
                          + "/"
                          + text(o, "involvedObject.name")),
              new Column("Message", "string", 0, o -> text(o, "message")),
              new Column("Source", "string", 1, o -> text(o, "reportingComponent")),
              new Column("Count", "string", 1, o -> text(o, "count")),
              new Column("Name", "string", 1, o -> text(o, "metadata.name")));
      default -> List.of(name, age);
    };
  }

  private static String text(JsonNode object, String path) {
    var node = object;
    for (var part : path.split("\\.")) {
      node = node.path(part);
    }
    return node.isValueNode() ? node.asText() : "";
  }

  private static String orNone(String value) {
    return value.isEmpty() ? "<none>" : value;
  }

  private static String nodeStatus(JsonNode node) {
    for (var condition : node.path("status").path("conditions")) {
      if (condition.path("type").asText().equals("Ready")) {
        return condition.path("status").asText().equals("True") ? "Ready" : "NotReady";
      }
    }
    return "Unknown";
  }

  private static String internalIp(JsonNode node) {
    for (var address : node.path("status").path("addresses")) {
      if (address.path("type").asText().equals("InternalIP")) {
        return address.path("address").asText();
      }
    }
    return "<none>";
  }

  /**
   * The load-balancer ingress addresses, then spec.externalIPs, as kubectl prints them; {@code
   * <pending>} for a LoadBalancer still without an address, {@code <none>} otherwise.
   */
  private static String externalIps(JsonNode service) {
    var addresses = new java.util.ArrayList<String>();
    for (var ingress : service.path("status").path("loadBalancer").path("ingress")) {
      var address = ingress.path("ip").asText(ingress.path("hostname").asText(""));
      if (!address.isEmpty()) {
        addresses.add(address);
      }
    }
    service.path("spec").path("externalIPs").forEach(ip -> addresses.add(ip.asText()));
    if (!addresses.isEmpty()) {
      return String.join(",", addresses);
    }
    return text(service, "spec.type").equals("LoadBalancer") ? "<pending>" : "<none>";
  }

  private static String servicePorts(JsonNode service) {
    var ports = new ArrayList<String>();
    for (var port : service.path("spec").path("ports")) {
      var nodePort = port.path("nodePort").asInt(0);
      ports.add(
          port.path("port").asText()
              + (nodePort > 0 ? ":" + nodePort : "")
              + "/"
              + port.path("protocol").asText("TCP"));
    }
    return ports.isEmpty() ? "<none>" : String.join(",", ports);
  }

  private static String slicePorts(JsonNode slice) {
    var ports = new ArrayList<String>();
    slice.path("ports").forEach(port -> ports.add(port.path("port").asText()));
    return ports.isEmpty() ? "<unset>" : String.join(",", ports);
  }

  private static String sliceAddresses(JsonNode slice) {
    var addresses = new ArrayList<String>();
    slice
        .path("endpoints")
        .forEach(endpoint -> endpoint.path("addresses").forEach(a -> addresses.add(a.asText())));
    return addresses.isEmpty() ? "<none>" : String.join(",", addresses);
  }

  /** Each endpoint's hints, for example {@code 10.244.1.10→node-a1}; "<none>" without any. */
  private static String sliceHints(JsonNode slice) {
    var hints = new ArrayList<String>();
    for (var endpoint : slice.path("endpoints")) {
      var targets = new ArrayList<String>();
      endpoint.path("hints").path("forNodes").forEach(n -> targets.add(n.path("name").asText()));
      endpoint.path("hints").path("forZones").forEach(z -> targets.add(z.path("name").asText()));
      if (!targets.isEmpty()) {
        hints.add(endpoint.path("addresses").path(0).asText() + "→" + String.join("+", targets));
      }
    }
    return hints.isEmpty() ? "<none>" : String.join(",", hints);
  }

  private static String eventLastSeen(JsonNode event) {
    var last = text(event, "lastTimestamp");
    return age(last.isEmpty() ? text(event, "eventTime") : last);
  }

  private static String pairs(JsonNode map) {
    var pairs = new ArrayList<String>();
    map.fields().forEachRemaining(f -> pairs.add(f.getKey() + "=" + f.getValue().asText()));
    return pairs.isEmpty() ? "<none>" : String.join(",", pairs);
  }

  /** Like kubectl's ages: 42s, 5m, 3h, 2d. */
  private static String age(String timestamp) {
    if (timestamp.isEmpty()) {
      return "<unknown>";
    }
    try {
      var age = Duration.between(Instant.parse(timestamp), CLOCK.instant());
      if (age.isNegative()) {
        return "0s";
      }
      if (age.toSeconds() < 120) {
        return age.toSeconds() + "s";
      }
      if (age.toMinutes() < 120) {
        return age.toMinutes() + "m";
      }
      return age.toHours() < 48 ? age.toHours() + "h" : age.toDays() + "d";
    } catch (DateTimeParseException unreadable) {
      return "<unknown>";
    }
  }
}
