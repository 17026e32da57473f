package dev.proxima.cli;

import dev.proxima.model.state.ClusterState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What the offline commands read from a live cluster instead of a state file: every Service,
 * EndpointSlice and Node, and for the proxy's commands every ServiceCIDR, listed once in pages (no
 * watch, nothing written).
 */
public final class LiveClusterState {
  private static final long PAGE = 500;

  private LiveClusterState() {}

  /** A cluster that cannot be listed; the message names the URL and the cause. */
  public static final class UnreachableException extends Exception {
    UnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Lists the cluster the kubeconfig names.
   *
   * @param serviceCidrs also list ServiceCIDR objects (networking.k8s.io/v1), as the live proxy
   *     watches them; an API server that does not serve them, or does not let the user list them,
   *     gives none and a note in {@link ClusterState#ignored}, as the proxy then programs none
   */
  public static ClusterState list(io.fabric8.kubernetes.client.Config config, boolean serviceCidrs)
      throws UnreachableException {
    // A one-shot command should fail in seconds, not after the long retries a controller wants.
    config.setRequestRetryBackoffLimit(1);
    try (var client = new KubernetesClientBuilder().withConfig(config).build()) {
      return list(client, serviceCidrs);
    }
  }

  static ClusterState list(KubernetesClient client, boolean withServiceCidrs)
      throws UnreachableException {
    var api = client.getMasterUrl().toString().replaceAll("/+$", "");
    var services =
        all(api + "/api/v1/services", options -> client.services().inAnyNamespace().list(options));
    var slices =
        all(
            api + "/apis/discovery.k8s.io/v1/endpointslices",
            options -> client.discovery().v1().endpointSlices().inAnyNamespace().list(options));
    var nodes = all(api + "/api/v1/nodes", options -> client.nodes().list(options));
    List<ServiceCIDR> serviceCidrs = List.of();
    List<String> notes = new ArrayList<>();
    if (withServiceCidrs) {
      var url = api + "/apis/networking.k8s.io/v1/servicecidrs";
      try {
        serviceCidrs = all(url, options -> client.resources(ServiceCIDR.class).list(options));
      } catch (UnreachableException unlisted) {
        if (!(unlisted.getCause() instanceof KubernetesClientException failure)
            || (failure.getCode() != 404 && failure.getCode() != 403)) {
          throw unlisted;
        }
        // Clusters before 1.33 have no v1 ServiceCIDRs, and a user may not be allowed to list
        // them: the live proxy then drops nothing for unallocated Service addresses, so neither
        // does what is rendered here.
        notes.add(
            "ServiceCIDRs not listed ("
                + ApiServerFailures.cause(failure)
                + "): traffic to unallocated Service addresses is not dropped, as the proxy does"
                + " when it cannot list them");
      }
    }
    return new ClusterState(services, slices, nodes, serviceCidrs, notes);
  }

  private static <T extends HasMetadata> List<T> all(
      String url, Function<ListOptions, ? extends KubernetesResourceList<T>> page)
      throws UnreachableException {
    var items = new ArrayList<T>();
    String next = null;
    try {
      do {
        var list = page.apply(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
        items.addAll(list.getItems());
        next = list.getMetadata() == null ? null : list.getMetadata().getContinue();
      } while (next != null && !next.isEmpty());
    } catch (KubernetesClientException failure) {
      throw new UnreachableException(
          "cannot list " + url + ": " + ApiServerFailures.cause(failure), failure);
    }
    return items;
  }
}
