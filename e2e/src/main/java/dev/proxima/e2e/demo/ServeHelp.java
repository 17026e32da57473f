package dev.proxima.e2e.demo;

import java.nio.file.Path;

/** What {@code ./demo.sh --serve} prints once everything runs: how to reach it and what to try. */
final class ServeHelp {
  private ServeHelp() {}

  static String text(Path kubeconfig, Path outputDirectory) {
    return """

        == Serving: the embedded cluster keeps running until Ctrl-C ==
        Point kubectl at it (the default namespace is demo):
          export KUBECONFIG=%1$s

        Things to try:
          kubectl get nodes -o wide                  # the zone of each node (a demo-only column)
          kubectl get services -o wide               # trafficDistribution (a demo-only column)
          kubectl get endpointslices -o wide         # the hints the controller wrote (demo-only)
          kubectl describe service checkout
          kubectl get events -A
          kubectl patch service checkout --type=merge -p '{"spec":{"trafficDistribution":"PreferSameNode"}}'
          kubectl get endpointslice -l kubernetes.io/service-name=checkout -o yaml
          cat %2$s/node-a1.txt                      # node-a1's routing, rewritten on every change
          kubectl apply -f my-service.yaml           # a Service and its EndpointSlice (docs/demo.md)
          java -jar proxy/target/proxima-proxy.jar status   # every node's proxy, one row each

        Changes show up below: [slices] when the controller rewrites hints, [node-x] when a
        node's routing changes (its report is rewritten) or its proxy loads new rules (appended
        to %2$s/<node>.nft).
        """
        .formatted(kubeconfig, outputDirectory);
  }
}
