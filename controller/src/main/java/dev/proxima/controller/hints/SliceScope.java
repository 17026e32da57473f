package dev.proxima.controller.hints;

import dev.proxima.model.Labels;
import dev.proxima.model.TrafficDistribution;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Map;
import java.util.Optional;

/**
 * Which EndpointSlices Proxima writes hints into ({@code --slices}), so it coexists with
 * kube-controller-manager instead of trading writes with it.
 *
 * @param serverVersion the API server's version, which decides {@link Slices#AUTO}; empty when
 *     unknown, in which case KCM is trusted only with what every release does (topology-mode Auto
 *     and removing hints)
 */
public record SliceScope(Slices slices, Optional<ServerVersion> serverVersion) {
  /** The values of {@code --slices}. */
  public enum Slices {
    /** Every slice, whoever manages it. */
    ALL,
    /** Only slices kube-controller-manager does not manage (mirrored, custom). */
    UNMANAGED,
    /** Also KCM's slices, but only for values KCM does not implement in this cluster's release. */
    AUTO
  }

  public static final SliceScope ALL = new SliceScope(Slices.ALL, Optional.empty());

  // The release from which KCM hints each value. trafficDistribution (KEP-4444): alpha 1.30, beta
  // and on by default 1.31, GA 1.33. PreferSameZone and PreferSameNode (KEP-3015): alpha 1.33,
  // beta and on by default 1.34, GA with the gate locked on 1.35. PreferSame* waits for GA because
  // a 1.34 KCM with the gate turned off strips those hints, and left to it a Service would get
  // none; on a 1.34 KCM with the gate on, Proxima and KCM write identical hints, so writing them
  // too costs nothing. Auto has been KCM's all along.
  private static final Map<String, ServerVersion> KCM_IMPLEMENTS_FROM =
      Map.of(
          TrafficDistribution.PREFER_CLOSE, new ServerVersion(1, 31),
          TrafficDistribution.PREFER_SAME_ZONE, new ServerVersion(1, 35),
          TrafficDistribution.PREFER_SAME_NODE, new ServerVersion(1, 35));

  /** True when kube-controller-manager's EndpointSlice controller manages the slice. */
  public static boolean managedByKcm(EndpointSlice slice) {
    var labels = slice.getMetadata().getLabels();
    return labels != null && Labels.UPSTREAM_SLICE_CONTROLLER.equals(labels.get(Labels.MANAGED_BY));
  }

  /** True when Proxima leaves this slice's hints to kube-controller-manager. */
  public boolean leavesToKcm(EndpointSlice slice, HintMode mode, TrafficDistribution value) {
    if (!managedByKcm(slice)) {
      return false;
    }
    return switch (slices) {
      case ALL -> false;
      case UNMANAGED -> true;
      case AUTO -> kcmImplements(mode, value);
    };
  }

  /** Whether this cluster's KCM hints (or clears) slices for the mode and value itself. */
  public boolean kcmImplements(HintMode mode, TrafficDistribution value) {
    return switch (mode) {
      // Every release runs the Auto heuristic and clears hints nobody asks for.
      case AUTO, NONE -> true;
      case TRAFFIC_DISTRIBUTION -> {
        var from = KCM_IMPLEMENTS_FROM.get(value.raw());
        yield from != null && serverVersion.map(v -> v.compareTo(from) >= 0).orElse(false);
      }
    };
  }

  /** For logs and condition messages: "--slices=auto (server 1.33)". */
  public String describe() {
    return "--slices="
        + slices.name().toLowerCase(java.util.Locale.ROOT)
        + (slices == Slices.AUTO
            ? " (server " + serverVersion.map(Object::toString).orElse("version unknown") + ")"
            : "");
  }
}
