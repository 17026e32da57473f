package dev.proxima.e2e.demo.api;

import java.util.List;
import java.util.Optional;

/**
 * One resource type the embedded API server announces in discovery: the kinds Proxima reads and
 * writes, plus the few kubectl asks about while describing them (pods on a node, a node's lease).
 *
 * @param group "" for the core group
 */
public record ApiResource(
    String group,
    String version,
    String plural,
    String singular,
    String kind,
    boolean namespaced,
    List<String> shortNames) {

  /** The resources {@code kubectl get all} lists. */
  static final List<String> IN_CATEGORY_ALL = List.of("services", "pods");

  static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** Everything the demo's API server serves. */
  public static final List<ApiResource> ALL =
      List.of(
          new ApiResource("", "v1", "namespaces", "namespace", "Namespace", false, List.of("ns")),
          new ApiResource("", "v1", "nodes", "node", "Node", false, List.of("no")),
          new ApiResource("", "v1", "services", "service", "Service", true, List.of("svc")),
          new ApiResource("", "v1", "endpoints", "endpoints", "Endpoints", true, List.of("ep")),
          new ApiResource("", "v1", "events", "event", "Event", true, List.of("ev")),
          new ApiResource("", "v1", "pods", "pod", "Pod", true, List.of("po")),
          new ApiResource(
              "discovery.k8s.io",
              "v1",
              "endpointslices",
              "endpointslice",
              "EndpointSlice",
              true,
              List.of()),
          new ApiResource(
              "coordination.k8s.io", "v1", "leases", "lease", "Lease", true, List.of()));

  /** "v1" for the core group, else "group/version", as in an object's apiVersion. */
  public String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The URL prefix of this resource's group and version: /api/v1 or /apis/group/version. */
  String groupVersionPath() {
    return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }

  /** The resource a request path names (/api/v1/namespaces/x/services/y → services), if any. */
  static Optional<ApiResource> ofPath(String path) {
    return ALL.stream()
        .filter(r -> path.startsWith(r.groupVersionPath() + "/"))
        .filter(
            r -> {
              var rest = path.substring(r.groupVersionPath().length() + 1).split("/");
              int at = rest.length >= 3 && rest[0].equals("namespaces") ? 2 : 0;
              return rest.length > at && rest[at].equals(r.plural);
            })
        .findFirst();
  }
}
