package dev.proxima.proxy.config;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.model.ProxyMode;
import java.time.Duration;
import java.util.List;

/**
 * What a kube-proxy configuration file says in Proxima's terms. A null component was not set in the
 * file (absent, or kube-proxy's "use the default" zero value), so Proxima's own default applies.
 *
 * @param ignored one sentence per field Proxima does not use, naming it and saying why
 */
public record KubeProxySettings(
    ProxyMode mode,
    String nodeName,
    List<String> clusterCidrs,
    Boolean masqueradeAll,
    Integer masqueradeBit,
    List<String> nodePortAddresses,
    Duration syncPeriod,
    Duration minSyncPeriod,
    Duration configSyncPeriod,
    String healthzBindAddress,
    String metricsBindAddress,
    String logFormat,
    String detectLocalMode,
    String podBridgeInterface,
    String podInterfaceNamePrefix,
    List<String> ignored,
    ConntrackSettings.FromFile conntrack) {}
