package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Optional;

/**
 * Just enough OpenAPI v3 for kubectl's create, apply and explain: each group version's document
 * declares that PATCH accepts the {@code fieldValidation} parameter, so kubectl asks the server to
 * validate ({@code fieldValidation=Strict}, which the mock accepts and ignores) instead of
 * validating on the client; and it holds the served kinds' fields for explain ({@link
 * KindSchemas}). No PATCH declares a strategic merge patch body, so kubectl apply builds its
 * strategic merge patches from the types compiled into it, as it does for any built-in kind.
 */
final class OpenApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/openapi/v3";

  private OpenApi() {}

  /**
   * {@code /openapi/v2} as kubectl asks for it (protobuf), holding no schemas: kubectl validates a
   * {@code List} on the client against this document rather than asking the server, and skips the
   * items whose kind it has no schema for, as it does for any kind a server does not describe. The
   * bytes are a gnostic {@code openapi.v2.Document} with only its {@code swagger} field (1), "2.0".
   */
  static MockResponse swaggerWithoutSchemas() {
    var body = new Buffer().write(new byte[] {0x0a, 0x03, '2', '.', '0'});
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
        .setBody(body);
  }

  /** The document at {@code path}, if it is one of OpenAPI's. */
  static Optional<ObjectNode> document(String path) {
    if (path.equals(PREFIX)) {
      var root = JSON.createObjectNode();
      var paths = root.putObject("paths");
      ApiResource.ALL.forEach(
          r -> {
            var relative = r.groupVersionPath().substring(1);
            paths.putObject(relative).put("serverRelativeURL", PREFIX + "/" + relative);
          });
      return Optional.of(root);
    }
    if (!path.startsWith(PREFIX + "/")) {
      return Optional.empty();
    }
    var groupVersionPath = path.substring(PREFIX.length());
    var resources =
        ApiResource.ALL.stream()
            .filter(r -> r.groupVersionPath().equals(groupVersionPath))
            .toList();
    if (resources.isEmpty()) {
      return Optional.empty();
    }
    var document = JSON.createObjectNode().put("openapi", "3.0.0");
    document.putObject("info").put("title", "Proxima demo API server").put("version", "v1");
    var paths = document.putObject("paths");
    for (var resource : resources) {
      var item =
          groupVersionPath
              + (resource.namespaced() ? "/namespaces/{namespace}/" : "/")
              + resource.plural()
              + "/{name}";
      patchAcceptingFieldValidation(
          paths, item, resource.group(), resource.version(), resource.kind());
    }
    var schemas = document.putObject("components").putObject("schemas");
    resources.forEach(resource -> KindSchemas.add(schemas, resource));
    if (groupVersionPath.equals("/api/v1")) {
      // kubectl validates a List (what kubectl get -o yaml exports) by its own kind, v1 List,
      // before it sends the items one by one; without it, apply -f of an export is refused.
      patchAcceptingFieldValidation(paths, "/api/v1/lists/{name}", "", "v1", "List");
    }
    return Optional.of(document);
  }

  private static void patchAcceptingFieldValidation(
      ObjectNode paths, String item, String group, String version, String kind) {
    var patch = paths.putObject(item).putObject("patch");
    patch
        .putObject("x-kubernetes-group-version-kind")
        .put("group", group)
        .put("version", version)
        .put("kind", kind);
    patch.put("x-kubernetes-action", "patch");
    patch
        .putArray("parameters")
        .addObject()
        .put("name", "fieldValidation")
        .put("in", "query")
        .putObject("schema")
        .put("type", "string");
    patch.putObject("responses").putObject("200").put("description", "OK");
  }
}
