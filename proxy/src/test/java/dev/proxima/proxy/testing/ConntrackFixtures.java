package dev.proxima.proxy.testing;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import java.time.Duration;

/** Conntrack settings the tests share: kube-proxy's defaults (run's), and none at all. */
public final class ConntrackFixtures {
  public static final ConntrackSettings DEFAULTS =
      new ConntrackSettings(
          32768,
          131072,
          Duration.ofHours(24),
          Duration.ofHours(1),
          false,
          Duration.ZERO,
          Duration.ZERO);

  public static final ConntrackSettings NONE =
      new ConntrackSettings(
          0, 0, Duration.ZERO, Duration.ZERO, false, Duration.ZERO, Duration.ZERO);

  private ConntrackFixtures() {}
}
