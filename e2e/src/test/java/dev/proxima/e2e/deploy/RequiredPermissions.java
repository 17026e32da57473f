package dev.proxima.e2e.deploy;

import java.util.Set;

/**
 * Every Kubernetes API call each component makes, written out from the code. {@link ManifestsTest}
 * checks that the roles in deploy/ grant exactly these; {@link ApiCallsTest} runs the components
 * against a recording API server and checks that they call exactly these. A new call in the code
 * fails the second until it is added here, which then fails the first until deploy/ grants it.
 */
final class RequiredPermissions {
  private RequiredPermissions() {}

  /**
   * One permission: a verb on a resource, cluster-wide (namespace null) or in one namespace, for
   * any object (resourceName null) or one.
   */
  record Permission(
      String namespace, String apiGroup, String resource, String verb, String resourceName) {
    static Permission clusterWide(String apiGroup, String resource, String verb) {
      return new Permission(null, apiGroup, resource, verb, null);
    }

    /** Whether this grant allows that request. */
    boolean allows(Permission request) {
      return (namespace == null || namespace.equals(request.namespace()))
          && apiGroup.equals(request.apiGroup())
          && resource.equals(request.resource())
          && verb.equals(request.verb())
          && (resourceName == null || resourceName.equals(request.resourceName()));
    }

    @Override
    public String toString() {
      return verb
          + " "
          + (apiGroup.isEmpty() ? "core" : apiGroup)
          + "/"
          + resource
          + (resourceName == null ? "" : "/" + resourceName)
          + (namespace == null ? " (cluster-wide)" : " in " + namespace);
    }
  }

  /** The default Lease: --leader-election-namespace and --leader-election-lease-name. */
  static final String LEASE_NAMESPACE = "proxima-system";

  static final String LEASE_NAME = "proxima-controller";

  /** The ConfigMap the controller publishes the zones' demand in, beside the Lease. */
  static final String ZONE_DEMAND = "proxima-zone-demand";

  /** proxima-controller, with its Lease in {@code leaseNamespace} named {@code leaseName}. */
  static Set<Permission> controller(String leaseNamespace, String leaseName) {
    return Set.of(
        // kube/ControllerInformers: services().inAnyNamespace(), nodes(), and
        // discovery().v1().endpointSlices().inAnyNamespace().withLabel(...), as informers.
        Permission.clusterWide("", "services", "list"),
        Permission.clusterWide("", "services", "watch"),
        Permission.clusterWide("", "nodes", "list"),
        Permission.clusterWide("", "nodes", "watch"),
        Permission.clusterWide("discovery.k8s.io", "endpointslices", "list"),
        Permission.clusterWide("discovery.k8s.io", "endpointslices", "watch"),
        // kube/KubeSliceWriter: resource(desired).update(), a PUT carrying the cached
        // resourceVersion (fabric8 reads the object first only when it has none).
        Permission.clusterWide("discovery.k8s.io", "endpointslices", "update"),
        // kube/KubeServiceStatusWriter: services().withName(n).subresource("status").patch(JSON,
        // ...) for the Service conditions; no GET first (the patch is built from the cache).
        Permission.clusterWide("", "services/status", "patch"),
        // kube/KubeEventRecorder: v1().events()...create() in the Service's namespace, and for a
        // repeat withName(name).patch(JSON_MERGE, "...") which fabric8 precedes with a GET.
        Permission.clusterWide("", "events", "create"),
        Permission.clusterWide("", "events", "get"),
        Permission.clusterWide("", "events", "patch"),
        // runtime/LeaderElection: fabric8's LeaseLock gets the Lease, creates it when missing, and
        // renews, takes over and releases it with a JSON merge patch (never a PUT).
        new Permission(leaseNamespace, "coordination.k8s.io", "leases", "create", null),
        new Permission(leaseNamespace, "coordination.k8s.io", "leases", "get", leaseName),
        new Permission(leaseNamespace, "coordination.k8s.io", "leases", "patch", leaseName),
        // kube/KubeZoneDemandWriter: the zone-demand ConfigMap beside the Lease; create, and on
        // AlreadyExists a GET, then full updates (PUT) carrying the stored resourceVersion.
        new Permission(leaseNamespace, "", "configmaps", "create", null),
        new Permission(leaseNamespace, "", "configmaps", "get", ZONE_DEMAND),
        new Permission(leaseNamespace, "", "configmaps", "update", ZONE_DEMAND));
  }

  /**
   * proxima-proxy: informers/KubeProxyCache's informers on Services, on EndpointSlices, on every
   * Node (its own for its zone and pod CIDRs, the others for the addresses no Service may take), on
   * ServiceCIDRs (cluster-scoped), and on the zone-demand ConfigMap. It writes nothing, not even
   * Events.
   */
  static final Set<Permission> PROXY =
      Set.of(
          Permission.clusterWide("", "services", "list"),
          Permission.clusterWide("", "services", "watch"),
          Permission.clusterWide("", "nodes", "list"),
          Permission.clusterWide("", "nodes", "watch"),
          Permission.clusterWide("discovery.k8s.io", "endpointslices", "list"),
          Permission.clusterWide("discovery.k8s.io", "endpointslices", "watch"),
          Permission.clusterWide("networking.k8s.io", "servicecidrs", "list"),
          Permission.clusterWide("networking.k8s.io", "servicecidrs", "watch"),
          // informers/ZoneDemandWatch: configMaps().inNamespace(ns).withName(n), as an informer,
          // which lists and watches with a metadata.name field selector.
          new Permission(LEASE_NAMESPACE, "", "configmaps", "list", ZONE_DEMAND),
          new Permission(LEASE_NAMESPACE, "", "configmaps", "watch", ZONE_DEMAND));
}
