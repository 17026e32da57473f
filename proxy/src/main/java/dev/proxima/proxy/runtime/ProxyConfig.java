package dev.proxima.proxy.runtime;

import dev.proxima.proxy.plan.RuleSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * How the live proxy is tuned.
 *
 * @param syncPeriod how soon a failed sync is retried
 * @param serviceProxyName handle only the Services with this service-proxy-name label; null handles
 *     unlabelled Services only
 * @param zoneDemandNamespace where the controller publishes the zone demand; null watches none
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
        null,
        DEFAULT_ZONE_DEMAND_NAMESPACE);
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
