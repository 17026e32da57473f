package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * fabric8's CRUD mock with what the real kubectl needs around it: discovery, the version, a little
 * OpenAPI, merge and strategic merge patches applied here and stored as the JSON patches the mock
 * applies exactly, field selectors on lists, typed list kinds, Tables for {@code kubectl get}, and
 * the defaults a new Service gets. Storage and watches stay the mock's, so Proxima's own clients
 * are served exactly as in the tests that use the mock directly.
 */
public final class KubectlDispatcher extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String STRATEGIC_MERGE = "application/strategic-merge-patch+json";
  private static final String MERGE = "application/merge-patch+json";
  private static final String JSON_PATCH = "application/json-patch+json";
  private static final int PATCH_ATTEMPTS = 5;
  private static final Set<String> HEALTH_PATHS = Set.of("/healthz", "/readyz", "/livez");

  private final KubernetesCrudDispatcher store;

  public KubectlDispatcher(KubernetesCrudDispatcher store) {
    this.store = store;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    var response = route(request);
    // The mock sends no Content-Type; client-go then decodes by the first type it asked for,
    // which for kubectl describe is protobuf. Everything the mock answers is JSON.
    if (response.getWebSocketListener() == null && response.header("Content-Type") == null) {
      response.setHeader("Content-Type", "application/json");
    }
    return response;
  }

  private MockResponse route(RecordedRequest request) {
    var target = request.getPath();
    int question = target.indexOf('?');
    var path = question < 0 ? target : target.substring(0, question);
    var query = question < 0 ? "" : target.substring(question + 1);
    var refusal = unsupported(request, query);
    if (refusal.isPresent()) {
      return refusal.get();
    }
    try {
      return switch (request.method()) {
        case GET -> get(request, path, query);
        case PATCH ->
            isStrategicMerge(request) || isMerge(request)
                ? patch(request, path, isStrategicMerge(request))
                : forward(request);
        case POST -> isServiceCollection(path) ? createService(request) : forward(request);
        case PUT -> {
          var conflict = staleWrite(request, path);
          if (conflict.isPresent()) {
            yield conflict.get();
          }
          yield isServiceItem(path) ? replaceService(request, path) : forward(request);
        }
        default -> forward(request);
      };
    } catch (JsonProcessingException | IllegalArgumentException bad) {
      return status(400, "BadRequest", bad.getMessage());
    }
  }

  /**
   * Requests the mock would get wrong rather than refuse: it ignores dryRun (kubectl diff and
   * --dry-run=server would really change objects), and cannot read protobuf bodies (kubectl create
   * service ... sends them) or server-side apply. Each gets an error naming what to use.
   */
  private static Optional<MockResponse> unsupported(RecordedRequest request, String query) {
    if (parameter(query, "dryRun").isPresent()) {
      return Optional.of(
          status(
              400,
              "BadRequest",
              "the demo's API server does not support server-side dry-run (kubectl diff,"
                  + " --dry-run=server); use --dry-run=client"));
    }
    var type = request.getHeader("Content-Type");
    if (type != null && type.startsWith("application/vnd.kubernetes.protobuf")) {
      return Optional.of(
          status(
              415,
              "UnsupportedMediaType",
              "the demo's API server reads JSON and YAML only, not protobuf; write a manifest"
                  + " and use kubectl apply -f or kubectl create -f"));
    }
    if (type != null && type.startsWith("application/apply-patch")) {
      return Optional.of(
          status(
              415,
              "UnsupportedMediaType",
              "the demo's API server does not support server-side apply; use kubectl apply"
                  + " without --server-side"));
    }
    return Optional.empty();
  }

  private MockResponse get(RecordedRequest request, String path, String query)
      throws JsonProcessingException {
    if (path.equals("/version")) {
      return json(200, VersionInfo.document());
    }
    var proxied = PodProxy.forward(path, query, store::handleGet);
    if (proxied.isPresent()) {
      return proxied.get();
    }
    if (HEALTH_PATHS.contains(path)) {
      return new MockResponse()
          .setResponseCode(200)
          .setHeader("Content-Type", "text/plain; charset=utf-8")
          .setBody("ok");
    }
    boolean watch = parameter(query, "watch").filter(value -> !value.equals("false")).isPresent();
    if (watch && request.getHeader("Upgrade") == null) {
      return status(
          400,
          "BadRequest",
          "the demo's API server streams watches over WebSocket only (as Proxima's clients ask"
              + " for them), so kubectl get -w and --watch are not supported; run kubectl get"
              + " again, or: watch -n 1 kubectl get ...");
    }
    var labels = parameter(query, "labelSelector").map(LabelSelector::parse);
    if (watch && labels.isPresent() && labels.get().setBased()) {
      return status(
          400,
          "BadRequest",
          "the demo's API server watches with equality label selectors only (key=value,"
              + " key!=value, key); in, notin and !key work on lists");
    }
    var discovery = Discovery.document(path);
    if (discovery.isPresent()) {
      return json(200, discovery.get());
    }
    if (path.equals("/openapi/v2")) {
      return OpenApi.swaggerWithoutSchemas();
    }
    if (path.startsWith("/openapi/")) {
      return OpenApi.document(path)
          .map(document -> json(200, document))
          .orElseGet(() -> status(404, "NotFound", "the demo serves no OpenAPI document " + path));
    }
    var selector = parameter(query, "fieldSelector");
    MockResponse response;
    if ((selector.isPresent() || labels.isPresent()) && !watch) {
      // Both selectors are matched here: the mock ignores most field selectors and the
      // set-based label selectors, and would answer with every object.
      response =
          forward(
              request.getHttpVersion(),
              HttpMethod.GET,
              path + "?" + without(without(query, "fieldSelector"), "labelSelector"),
              request.getHeaders(),
              new Buffer());
      var fields = selector.map(FieldSelector::parse);
      response =
          filtered(
              response,
              object ->
                  fields.map(f -> f.matches(object)).orElse(true)
                      && labels.map(l -> l.matches(object)).orElse(true));
    } else {
      response = forward(request);
    }
    var resource = ApiResource.ofPath(path);
    if (parameter(query, "watch").isPresent()) {
      return response;
    }
    return Tables.wanted(request.getHeader("Accept"))
        ? Tables.convert(response, resource)
        : typedList(response, resource);
  }

  /**
   * A replace that carries a resourceVersion other than the stored one is answered as a real API
   * server does: 409 Conflict naming the object, which kubectl prints with its usual advice.
   */
  private Optional<MockResponse> staleWrite(RecordedRequest request, String path)
      throws JsonProcessingException {
    var resource = ApiResource.ofPath(path);
    if (resource.isEmpty()) {
      return Optional.empty();
    }
    var body = JSON.readTree(text(request.getBody()));
    var sent = body == null ? "" : body.path("metadata").path("resourceVersion").asText("");
    if (sent.isEmpty()) {
      return Optional.empty();
    }
    var stored = store.handleGet(path);
    if (stored.code() != 200) {
      return Optional.empty();
    }
    var current = JSON.readTree(text(stored.getBody())).path("metadata");
    if (current.path("resourceVersion").asText("").equals(sent)) {
      return Optional.empty();
    }
    return Optional.of(conflict(resource.get(), current.path("name").asText()));
  }

  /** 409 Conflict for a write based on an older version of the object. */
  static MockResponse conflict(ApiResource resource, String name) {
    var plural =
        resource.group().isEmpty() ? resource.plural() : resource.plural() + "." + resource.group();
    var response =
        status(
            409,
            "Conflict",
            "Operation cannot be fulfilled on "
                + plural
                + " \""
                + name
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again");
    try {
      var body = (ObjectNode) JSON.readTree(text(response.getBody()));
      body.putObject("details")
          .put("name", name)
          .put("group", resource.group())
          .put("kind", resource.plural());
      return json(409, body);
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  private static boolean isStrategicMerge(RecordedRequest request) {
    var type = request.getHeader("Content-Type");
    return type != null && type.startsWith(STRATEGIC_MERGE);
  }

  private static boolean isMerge(RecordedRequest request) {
    var type = request.getHeader("Content-Type");
    return type != null && type.startsWith(MERGE);
  }

  /**
   * Applies a merge or strategic merge patch to the stored object here, then hands the mock the
   * JSON patch from the stored object to the result. The patch first tests the stored
   * resourceVersion, so a write in between (the controller's, say) fails it instead of being
   * undone; like a real API server, the patch is then applied again to the newer object.
   */
  private MockResponse patch(RecordedRequest request, String path, boolean strategic)
      throws JsonProcessingException {
    var patch = JSON.readTree(text(request.getBody()));
    if (!(patch instanceof ObjectNode patchMap)) {
      throw new IllegalArgumentException("a merge patch must be a JSON object");
    }
    MockResponse response = null;
    for (int attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
      var stored = store.handleGet(path);
      if (stored.code() != 200) {
        return stored;
      }
      var current = (ObjectNode) JSON.readTree(text(stored.getBody()));
      var kind = current.path("kind").asText();
      if (strategic && !StrategicMergePatch.supports(kind)) {
        return status(
            415,
            "UnsupportedMediaType",
            "the demo's API server applies strategic merge patches only to Services,"
                + " EndpointSlices, Nodes, Events, Namespaces and Leases, not "
                + kind
                + "; use kubectl patch --type=merge or --type=json");
      }
      var result =
          strategic
              ? StrategicMergePatch.apply(current, patchMap)
              : JsonMergePatch.apply(current, patchMap);
      if (kind.equals("Service")) {
        // A port added by the patch gets its protocol and target port, as on a real API server.
        ServiceDefaults.apply(result, clusterIpsInUse());
      }
      var version = current.path("metadata").path("resourceVersion");
      var operations = JSON.createArrayNode();
      operations
          .addObject()
          .put("op", "test")
          .put("path", "/metadata/resourceVersion")
          .set("value", version);
      operations.addAll(JsonPatch.between(current, result));
      var headers =
          request
              .getHeaders()
              .newBuilder()
              .removeAll("Content-Type")
              .add("Content-Type", JSON_PATCH);
      try {
        response =
            forward(
                request.getHttpVersion(),
                HttpMethod.PATCH,
                request.getPath(),
                headers.build(),
                new Buffer().writeUtf8(JSON.writeValueAsString(operations)));
      } catch (JsonPatchException failedTest) {
        // The mock throws when an operation does not apply; the resourceVersion test is the
        // only one that can fail here, because the others were computed from this very object.
        response =
            conflict(
                ApiResource.ofPath(path).orElseThrow(),
                current.path("metadata").path("name").asText());
      }
      if (response.code() < 400 || unchangedSince(path, version)) {
        return response;
      }
    }
    return response;
  }

  /** Whether the object at {@code path} still has {@code version} (or is gone). */
  private boolean unchangedSince(String path, JsonNode version) throws JsonProcessingException {
    var stored = store.handleGet(path);
    return stored.code() != 200
        || JSON.readTree(text(stored.getBody()))
            .path("metadata")
            .path("resourceVersion")
            .equals(version);
  }

  private static boolean isServiceCollection(String path) {
    return path.endsWith("/services")
        && ApiResource.ofPath(path).map(r -> r.kind().equals("Service")).orElse(false);
  }

  private static boolean isServiceItem(String path) {
    var parts = path.split("/");
    return parts.length >= 2
        && parts[parts.length - 2].equals("services")
        && ApiResource.ofPath(path).map(r -> r.kind().equals("Service")).orElse(false);
  }

  /**
   * A replaced Service keeps its ClusterIPs when the new one leaves them out, as on a real API
   * server (they are immutable), and gets the same defaults as a new one.
   */
  private MockResponse replaceService(RecordedRequest request, String path)
      throws JsonProcessingException {
    var service = JSON.readTree(text(request.getBody()));
    var stored = store.handleGet(path);
    if (!(service instanceof ObjectNode serviceMap) || stored.code() != 200) {
      return forward(request);
    }
    var storedSpec = JSON.readTree(text(stored.getBody())).path("spec");
    var spec = serviceMap.with("spec");
    for (var field : List.of("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy")) {
      if (!spec.hasNonNull(field) && storedSpec.hasNonNull(field)) {
        spec.set(field, storedSpec.get(field));
      }
    }
    ServiceDefaults.apply(serviceMap, clusterIpsInUse());
    return forwardWithBody(request, serviceMap);
  }

  private MockResponse createService(RecordedRequest request) throws JsonProcessingException {
    var service = JSON.readTree(text(request.getBody()));
    if (!(service instanceof ObjectNode serviceMap)) {
      throw new IllegalArgumentException("a Service must be a JSON object");
    }
    ServiceDefaults.apply(serviceMap, clusterIpsInUse());
    return forwardWithBody(request, serviceMap);
  }

  private Set<String> clusterIpsInUse() throws JsonProcessingException {
    var taken = new HashSet<String>();
    var all = store.handleGet("/api/v1/services");
    for (JsonNode existing : JSON.readTree(text(all.getBody())).path("items")) {
      existing.path("spec").path("clusterIPs").forEach(ip -> taken.add(ip.asText()));
      taken.add(existing.path("spec").path("clusterIP").asText());
    }
    return taken;
  }

  private static MockResponse filtered(
      MockResponse list, java.util.function.Predicate<JsonNode> selector)
      throws JsonProcessingException {
    if (list.code() != 200) {
      return list;
    }
    var document = JSON.readTree(text(list.getBody()));
    if (document instanceof ObjectNode map && map.get("items") != null) {
      var items = new ArrayList<JsonNode>();
      map.path("items").forEach(items::add);
      var kept = map.putArray("items");
      items.stream().filter(selector).forEach(kept::add);
      return json(200, map);
    }
    return list;
  }

  /**
   * The mock calls every list a v1 "List"; client-go's typed clients (kubectl describe) decode only
   * the list kind of the resource, for example discovery.k8s.io/v1 EndpointSliceList.
   */
  private static MockResponse typedList(MockResponse response, Optional<ApiResource> resource)
      throws JsonProcessingException {
    if (response.code() != 200 || resource.isEmpty()) {
      return response;
    }
    var document = JSON.readTree(text(response.getBody()));
    if (document instanceof ObjectNode list && list.path("kind").asText().equals("List")) {
      list.put("kind", resource.get().kind() + "List");
      list.put("apiVersion", resource.get().groupVersion());
      return json(200, list);
    }
    return response;
  }

  /** {@code request} as it came, with {@code body} in place of its own. */
  private MockResponse forwardWithBody(RecordedRequest request, JsonNode body)
      throws JsonProcessingException {
    return forward(
        request.getHttpVersion(),
        request.method(),
        request.getPath(),
        request.getHeaders(),
        new Buffer().writeUtf8(JSON.writeValueAsString(body)));
  }

  private MockResponse forward(RecordedRequest request) {
    return store.dispatch(request);
  }

  private MockResponse forward(
      String httpVersion, HttpMethod method, String path, Headers headers, Buffer body) {
    return store.dispatch(new RecordedRequest(httpVersion, method, path, headers, body));
  }

  private static Optional<String> parameter(String query, String name) {
    for (var pair : query.split("&")) {
      if (pair.startsWith(name + "=")) {
        return Optional.of(pair.substring(name.length() + 1));
      }
    }
    return Optional.empty();
  }

  private static String without(String query, String name) {
    var kept = new ArrayList<String>();
    for (var pair : query.split("&")) {
      if (!pair.isEmpty() && !pair.startsWith(name + "=")) {
        kept.add(pair);
      }
    }
    return String.join("&", kept);
  }

  /** A body's text, read without emptying it (Buffer's own read methods drain it). */
  static String text(io.fabric8.mockwebserver.http.Buffer body) {
    return new String(body.getBytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  static MockResponse json(int code, JsonNode body) {
    try {
      return new MockResponse()
          .setResponseCode(code)
          .setHeader("Content-Type", "application/json")
          .setBody(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A Kubernetes Status, which kubectl prints as "Error from server (reason): message". */
  static MockResponse status(int code, String reason, String message) {
    var body =
        JSON.createObjectNode()
            .put("kind", "Status")
            .put("apiVersion", "v1")
            .put("status", "Failure")
            .put("message", message)
            .put("reason", reason)
            .put("code", code);
    body.putObject("metadata");
    return json(code, body);
  }

  @Override
  public void shutdown() {
    store.shutdown();
  }
}
