package dev.proxima.e2e.demo;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.PrintWriter;
import java.util.Objects;

/** Prints each EndpointSlice whose hints change once the demo serves, as the controller works. */
final class HintChanges implements ResourceEventHandler<EndpointSlice> {
  private final PrintWriter out;
  private volatile boolean listed;

  private HintChanges(PrintWriter out) {
    this.out = out;
  }

  /** Starts watching; the slices that exist now are taken as the starting point. */
  static SharedIndexInformer<EndpointSlice> watch(KubernetesClient client, PrintWriter out) {
    var changes = new HintChanges(out);
    var informer = client.discovery().v1().endpointSlices().inAnyNamespace().inform(changes);
    changes.listed = true;
    return informer;
  }

  @Override
  public void onAdd(EndpointSlice slice) {
    if (listed) {
      print("added", slice);
    }
  }

  @Override
  public void onUpdate(EndpointSlice before, EndpointSlice after) {
    if (!Objects.equals(hints(before), hints(after))) {
      print("hints changed", after);
    }
  }

  @Override
  public void onDelete(EndpointSlice slice, boolean finalStateUnknown) {
    synchronized (out) {
      out.printf(
          "%n[slices] %s/%s deleted%n",
          slice.getMetadata().getNamespace(), slice.getMetadata().getName());
      out.flush();
    }
  }

  private void print(String what, EndpointSlice slice) {
    synchronized (out) {
      out.printf(
          "%n[slices] %s/%s %s:%n",
          slice.getMetadata().getNamespace(), slice.getMetadata().getName(), what);
      for (var endpoint : slice.getEndpoints()) {
        out.printf(
            "[slices]   %-14s %-9s %s%n",
            String.join(",", endpoint.getAddresses()),
            endpoint.getNodeName(),
            ExampleCluster.hints(endpoint));
      }
      out.flush();
    }
  }

  private static String hints(EndpointSlice slice) {
    var text = new StringBuilder();
    slice
        .getEndpoints()
        .forEach(endpoint -> text.append(ExampleCluster.hints(endpoint)).append(';'));
    return text.toString();
  }
}
