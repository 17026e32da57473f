package dev.proxima.model;

/** Well-known Kubernetes label keys that Proxima reads or writes. */
public final class Labels {
  /** The zone of a Node; the EndpointSlice controller copies it into each endpoint's zone. */
  public static final String ZONE = "topology.kubernetes.io/zone";

  /** Links an EndpointSlice to its Service; every slice carrying it is in Proxima's scope. */
  public static final String SERVICE_NAME = "kubernetes.io/service-name";

  /** Names the controller that manages an EndpointSlice's endpoints. */
  public static final String MANAGED_BY = "endpointslice.kubernetes.io/managed-by";

  /**
   * Hands a Service to one named proxy; kube-proxy and Proxima skip Services labelled for others.
   */
  public static final String SERVICE_PROXY_NAME = "service.kubernetes.io/service-proxy-name";

  /** Present on the EndpointSlices of headless Services. */
  public static final String HEADLESS = "service.kubernetes.io/headless";

  /** Marks control-plane Nodes, which upstream leaves out of zone capacity. */
  public static final String CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane";

  /** The pre-1.24 spelling of the control-plane role, still honoured upstream. */
  public static final String LEGACY_MASTER_ROLE = "node-role.kubernetes.io/master";

  /** The managed-by value of kube-controller-manager's EndpointSlice controller. */
  public static final String UPSTREAM_SLICE_CONTROLLER = "endpointslice-controller.k8s.io";

  private Labels() {}
}
