package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashSet;
import java.util.Optional;

/**
 * The legacy (unaggregated) discovery documents kubectl reads to map "nodes" or "svc" to a URL:
 * /api, /apis, and one resource list per group version. kubectl asks for the aggregated format
 * first and falls back to these when the answer is plain JSON.
 */
final class Discovery {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Discovery() {}

  /** The document at {@code path}, if it is one of discovery's. */
  static Optional<ObjectNode> document(String path) {
    if (path.equals("/api")) {
      return Optional.of(coreVersions());
    }
    if (path.equals("/apis")) {
      return Optional.of(groups());
    }
    return ApiResource.ALL.stream()
        .filter(r -> r.groupVersionPath().equals(path))
        .findFirst()
        .map(r -> resources(r.groupVersion()));
  }

  private static ObjectNode coreVersions() {
    var document = JSON.createObjectNode().put("kind", "APIVersions");
    document.putArray("versions").add("v1");
    document
        .putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", "127.0.0.1");
    return document;
  }

  private static ObjectNode groups() {
    var document = JSON.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
    var groups = document.putArray("groups");
    var groupVersions = new LinkedHashSet<String>();
    ApiResource.ALL.stream()
        .filter(r -> !r.group().isEmpty())
        .forEach(r -> groupVersions.add(r.groupVersion()));
    for (var groupVersion : groupVersions) {
      var group = groupVersion.substring(0, groupVersion.indexOf('/'));
      var version = groupVersion.substring(groupVersion.indexOf('/') + 1);
      var entry = groups.addObject().put("name", group);
      var versionNode =
          JSON.createObjectNode().put("groupVersion", groupVersion).put("version", version);
      entry.putArray("versions").add(versionNode);
      entry.set("preferredVersion", versionNode.deepCopy());
    }
    return document;
  }

  private static ObjectNode resources(String groupVersion) {
    var document =
        JSON.createObjectNode()
            .put("kind", "APIResourceList")
            .put("apiVersion", "v1")
            .put("groupVersion", groupVersion);
    var list = document.putArray("resources");
    ApiResource.ALL.stream()
        .filter(r -> r.groupVersion().equals(groupVersion))
        .forEach(
            r -> {
              var entry =
                  list.addObject()
                      .put("name", r.plural())
                      .put("singularName", r.singular())
                      .put("namespaced", r.namespaced())
                      .put("kind", r.kind());
              strings(entry.putArray("verbs"), ApiResource.VERBS);
              if (ApiResource.IN_CATEGORY_ALL.contains(r.plural())) {
                entry.putArray("categories").add("all");
              }
              if (!r.shortNames().isEmpty()) {
                strings(entry.putArray("shortNames"), r.shortNames());
              }
            });
    return document;
  }

  private static void strings(ArrayNode array, Iterable<String> values) {
    values.forEach(array::add);
  }
}
