package dev.proxima.proxy.runtime;

import dev.proxima.proxy.plan.RuleSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * How the live proxy is tuned, as one immutable value the CLI builds and tests construct.
 *
 * @param minSyncPeriod the least time between two syncs; changes within it are batched
 * @param syncPeriod how soon a failed sync is retried
 * @param serviceProxyName handle only the Services labelled
 *     service.kubernetes.io/service-proxy-name with this value; null handles unlabelled Services
 *     only
 * @param zoneDemandNamespace where the controller publishes the zone demand that zone spill-over
 *     follows; null watches none
 */
public record ProxyConfig(
    String nodeName,
    RuleSettings rules,
    Duration minSyncPeriod,
    Duration syncPeriod,
    Duration fullSyncPeriod,
    String serviceProxyName,
    String zoneDemandNamespace) {

  /** Where the manifests run the controller, and so where it publishes the zone demand. */
  public static final String DEFAULT_ZONE_DEMAND_NAMESPACE = "proxima-system";

  /** With the zone demand in {@link #DEFAULT_ZONE_DEMAND_NAMESPACE}. */
  public ProxyConfig(
      String nodeName,
      RuleSettings rules,
      Duration minSyncPeriod,
      Duration syncPeriod,
      Duration fullSyncPeriod,
      String serviceProxyName) {
    this(
        nodeName,
        rules,
        minSyncPeriod,
        syncPeriod,
        fullSyncPeriod,
        serviceProxyName,
        DEFAULT_ZONE_DEMAND_NAMESPACE);
  }

  public ProxyConfig {
    Objects.requireNonNull(nodeName, "nodeName");
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException("the node name is empty; set --node-name or NODE_NAME");
    }
    Objects.requireNonNull(rules, "rules");
    if (rules.masqueradeBit() < 0 || rules.masqueradeBit() > 31) {
      throw new IllegalArgumentException(
          "--masquerade-bit must be 0-31, got " + rules.masqueradeBit());
    }
    if (syncPeriod.compareTo(minSyncPeriod) < 0) {
      throw new IllegalArgumentException(
          "--sync-period " + syncPeriod + " is below --min-sync-period " + minSyncPeriod);
    }
  }

  /** kube-proxy's defaults: 1 s between syncs, 30 s retries, a full resync at least hourly. */
  public static ProxyConfig defaults(String nodeName) {
    return new ProxyConfig(
        nodeName,
        RuleSettings.defaults(),
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofHours(1),
        null);
  }

  public ProxyConfig withRules(RuleSettings value) {
    return new ProxyConfig(
        nodeName,
        value,
        minSyncPeriod,
        syncPeriod,
        fullSyncPeriod,
        serviceProxyName,
        zoneDemandNamespace);
  }

  /** Unapplied changes older than this make /healthz fail, as in kube-proxy. */
  public Duration healthTimeout() {
    return syncPeriod.multipliedBy(2);
  }
}
