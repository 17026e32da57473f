package dev.proxima.proxy.render.iptables;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.NameHash;

/**
 * Proxima's chain names, all starting {@code PROXIMA-} so they never collide with kube-proxy's or
 * anyone's; per-Service and per-endpoint chains end in {@value #HASH_LENGTH} characters of a hash.
 */
public final class IptablesChains {
  private IptablesChains() {}

  /** XT_EXTENSION_MAXNAMELEN 29, with NUL. */
  public static final int MAX_LENGTH = 28;

  public static final int HASH_LENGTH = 16;

  /** Chains without it are never touched. */
  public static final String PREFIX = "PROXIMA-";

  /** Empty, in mangle, nat and filter, made by every full sync: its absence triggers a resync. */
  public static final String CANARY = "PROXIMA-PROXY-CANARY";

  // Top-level chains, in both tables unless noted.
  public static final String SERVICES = "PROXIMA-SERVICES";

  /** filter only. */
  public static final String EXTERNAL_SERVICES = "PROXIMA-EXTERNAL-SERVICES";

  public static final String NODEPORTS = "PROXIMA-NODEPORTS";

  /** nat only. */
  public static final String POSTROUTING = "PROXIMA-POSTROUTING";

  /** nat only. */
  public static final String MARK_MASQ = "PROXIMA-MARK-MASQ";

  /** nat, with several cluster CIDRs ({@code ! -s} takes one): masquerade unless from them. */
  public static final String MASQ_NON_POD = "PROXIMA-MASQ-NON-POD";

  /** filter only: DROP for load-balancer traffic its source ranges did not accept. */
  public static final String FIREWALL = "PROXIMA-FIREWALL";

  /** filter only. */
  public static final String FORWARD = "PROXIMA-FORWARD";

  /** Connection counters ({@link IptablesCounters}). */
  public static final String COUNT_PREFIX = "PROXIMA-COUNT-";

  /** filter only: jumped to just before each drop or reject for lack of endpoints. */
  public static final String COUNT_NO_ENDPOINTS = COUNT_PREFIX + "NO-ENDPOINTS";

  /** nat only: the counter every endpoint chain of this locality jumps to first. */
  public static String counter(Locality locality) {
    return COUNT_PREFIX + locality.label().toUpperCase(java.util.Locale.ROOT);
  }

  /** Per-Service-port counters (nat only), with a hash short enough to fit the name limit. */
  public static final String SERVICE_COUNT_PREFIX = "PROXIMA-SC-";

  static final int SERVICE_COUNTER_HASH_LENGTH = 9;

  public static String serviceCounterStem(ServicePortName name) {
    return SERVICE_COUNT_PREFIX + serviceHash(name).substring(0, SERVICE_COUNTER_HASH_LENGTH) + "-";
  }

  /** OTHER_ZONE is OTHER, to fit the chain name limit. */
  public static String serviceCounter(String stem, Locality locality) {
    return stem + (locality == Locality.OTHER_ZONE ? "OTHER" : locality.name());
  }

  public static final String SVC_PREFIX = "PROXIMA-SVC-";
  public static final String SVL_PREFIX = "PROXIMA-SVL-";
  public static final String EXT_PREFIX = "PROXIMA-EXT-";
  public static final String FW_PREFIX = "PROXIMA-FW-";
  public static final String SEP_PREFIX = "PROXIMA-SEP-";

  /** A spilling port's in-zone choice, reached with the zone's probability from its SVC chain. */
  public static final String SPZ_PREFIX = "PROXIMA-SPZ-";

  /** base32(sha256(servicePortName + lowercase protocol)), as kube-proxy's per-Service hash. */
  public static String serviceHash(ServicePortName name) {
    return NameHash.of(name.toString() + name.protocol().lower()).substring(0, HASH_LENGTH);
  }

  public static String endpointHash(ServicePortName name, Endpoint endpoint) {
    return NameHash.of(name.toString() + name.protocol().lower() + endpoint.address())
        .substring(0, HASH_LENGTH);
  }

  public static String sep(ServicePortName name, Endpoint endpoint) {
    return SEP_PREFIX + endpointHash(name, endpoint);
  }
}
