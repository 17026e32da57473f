package dev.proxima.controller.kube;

import dev.proxima.cli.ApiServerFailures;
import dev.proxima.controller.hints.HintMode;
import dev.proxima.controller.hints.ServerVersion;
import dev.proxima.controller.hints.SliceScope;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the API server's version once, from discovery's /version (a non-resource URL every
 * authenticated user may read), to decide what {@code --slices=auto} leaves to
 * kube-controller-manager.
 */
public final class ServerVersions {
  private static final Logger log = LoggerFactory.getLogger(ServerVersions.class);

  private ServerVersions() {}

  /** The scope for {@code slices}; asks the API server only for {@link SliceScope.Slices#AUTO}. */
  public static SliceScope scope(KubernetesClient client, SliceScope.Slices slices) {
    if (slices != SliceScope.Slices.AUTO) {
      log.atInfo().addKeyValue("slices", slices).log("EndpointSlice scope");
      return new SliceScope(slices, Optional.empty());
    }
    Optional<ServerVersion> version = Optional.empty();
    String raw = null;
    try {
      var info = client.getKubernetesVersion();
      raw = info == null ? null : info.getMajor() + "." + info.getMinor();
      version =
          info == null ? Optional.empty() : ServerVersion.parse(info.getMajor(), info.getMinor());
    } catch (KubernetesClientException unreachable) {
      raw = "unreadable: " + ApiServerFailures.cause(unreachable);
    }
    var scope = new SliceScope(slices, version);
    if (version.isEmpty()) {
      // Fail towards writing: only what every KCM release does is left to it.
      log.atWarn()
          .addKeyValue("slices", "auto")
          .addKeyValue("serverVersion", raw)
          .log(
              "API server version unknown; leaving kube-controller-manager's slices to it only for"
                  + " topology-mode Auto and hint removal");
    } else {
      log.atInfo()
          .addKeyValue("slices", "auto")
          .addKeyValue("serverVersion", version.get())
          .addKeyValue("preferClose", hinter(scope, TrafficDistribution.PREFER_CLOSE))
          .addKeyValue("preferSameZone", hinter(scope, TrafficDistribution.PREFER_SAME_ZONE))
          .addKeyValue("preferSameNode", hinter(scope, TrafficDistribution.PREFER_SAME_NODE))
          .log(
              "EndpointSlice scope: kube-controller-manager's slices are hinted by whoever implements the value");
    }
    return scope;
  }

  /** Who hints KCM's slices for the value in this cluster, for the start-up log line. */
  private static String hinter(SliceScope scope, String value) {
    return scope.kcmImplements(HintMode.TRAFFIC_DISTRIBUTION, TrafficDistribution.parse(value))
        ? "kube-controller-manager"
        : "proxima";
  }
}
