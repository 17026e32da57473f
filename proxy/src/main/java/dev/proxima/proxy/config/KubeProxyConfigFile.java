package dev.proxima.proxy.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.model.Cidr;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.DetectLocalMode;
import dev.proxima.proxy.plan.RuleSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads kube-proxy's own configuration file (a {@code KubeProxyConfiguration} of {@code
 * kubeproxy.config.k8s.io/v1alpha1}, the {@code config.conf} key of kubeadm's
 * kube-system/kube-proxy ConfigMap) and maps what Proxima implements onto its settings. Every other
 * field that is set is reported once, by name, with the reason Proxima does not use it;
 * kube-proxy's zero values ({@code ""}, {@code 0}, {@code 0s}, {@code false}, {@code null}), which
 * mean "the default", are not reported. A file it cannot use is an IllegalArgumentException whose
 * message names the file and the problem.
 */
public final class KubeProxyConfigFile {
  static final String API_VERSION = "kubeproxy.config.k8s.io/v1alpha1";
  static final String KIND = "KubeProxyConfiguration";

  private static final String IPVS = "Proxima has no IPVS mode";
  private static final String WINDOWS = "it applies to Windows only";
  private static final String CLIENT =
      "Proxima connects with --kubeconfig or, in a pod, its service account";

  /**
   * The v1alpha1 fields Proxima knows but does not map, with the reason; the mapped ones are those
   * {@link #at} reads. {@code logging} and maps are checked by prefix.
   */
  private static final Map<String, String> NOT_USED =
      Map.ofEntries(
          Map.entry("featureGates", "Proxima has no feature gates"),
          Map.entry("clientConnection.kubeconfig", CLIENT),
          Map.entry("clientConnection.acceptContentTypes", CLIENT),
          Map.entry("clientConnection.contentType", CLIENT),
          Map.entry("clientConnection.qps", CLIENT),
          Map.entry("clientConnection.burst", CLIENT),
          Map.entry("bindAddress", "Proxima takes the node's addresses from its Node object"),
          Map.entry("bindAddressHardFail", "Proxima always exits when it cannot bind its servers"),
          Map.entry("enableProfiling", "Proxima serves no profiling endpoints"),
          Map.entry("showHiddenMetricsForVersion", "Proxima has no hidden metrics"),
          Map.entry("iptables.localhostNodePorts", "Proxima never accepts NodePorts on loopback"),
          Map.entry(
              "iptables.snatNodeInternalIP",
              "Proxima masquerades with the address of the outgoing interface"),
          Map.entry("ipvs.syncPeriod", IPVS),
          Map.entry("ipvs.minSyncPeriod", IPVS),
          Map.entry("ipvs.scheduler", IPVS),
          Map.entry("ipvs.excludeCIDRs", IPVS),
          Map.entry("ipvs.strictARP", IPVS),
          Map.entry("ipvs.tcpTimeout", IPVS),
          Map.entry("ipvs.tcpFinTimeout", IPVS),
          Map.entry("ipvs.udpTimeout", IPVS),
          Map.entry("winkernel.networkName", WINDOWS),
          Map.entry("winkernel.sourceVip", WINDOWS),
          Map.entry("winkernel.enableDSR", WINDOWS),
          Map.entry("winkernel.rootHnsEndpointName", WINDOWS),
          Map.entry("winkernel.forwardHealthCheckVip", WINDOWS),
          Map.entry("windowsRunAsService", WINDOWS),
          Map.entry("oomScoreAdj", "set the pod's priority and resources instead"),
          Map.entry("portRange", "kube-proxy no longer uses it either"));

  /** The fields of the {@code iptables} and {@code nftables} sections Proxima maps. */
  private static final List<String> SECTION_FIELDS =
      List.of("masqueradeBit", "masqueradeAll", "syncPeriod", "minSyncPeriod");

  private final String file;
  private final JsonNode root;
  private final List<String> ignored = new ArrayList<>();
  private final Set<String> mapped = new HashSet<>(Set.of("apiVersion", "kind"));
  private final Set<String> known = new HashSet<>(NOT_USED.keySet());

  private KubeProxyConfigFile(String file, JsonNode root) {
    this.file = file;
    this.root = root;
  }

  /** The mode from flags or environment (null: the file's) decides whose section applies. */
  public static KubeProxySettings read(Path path, ProxyMode modeFromFlags) {
    String text;
    try {
      text = Files.readString(path);
    } catch (IOException unreadable) {
      throw new IllegalArgumentException(
          path + ": cannot read the kube-proxy configuration: " + describe(unreadable));
    }
    return parse(path.toString(), text, modeFromFlags);
  }

  public static KubeProxySettings parse(String file, String text, ProxyMode modeFromFlags) {
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(text);
    } catch (JsonProcessingException malformed) {
      var location = malformed.getLocation();
      throw new IllegalArgumentException(
          file
              + ": not valid YAML"
              + (location == null
                  ? ""
                  : " at line " + location.getLineNr() + ", column " + location.getColumnNr())
              + ": "
              + firstLine(malformed.getOriginalMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(
          file + ": expected a " + KIND + " (" + API_VERSION + "), found no YAML mapping");
    }
    var apiVersion = root.path("apiVersion").asText("");
    var kind = root.path("kind").asText("");
    if ("ConfigMap".equals(kind)) {
      throw new IllegalArgumentException(
          file
              + ": this is a ConfigMap; give the file its config.conf key holds (mount the"
              + " ConfigMap as a volume, or: kubectl -n kube-system get configmap kube-proxy"
              + " -o jsonpath='{.data.config\\.conf}')");
    }
    if (!API_VERSION.equals(apiVersion) || !KIND.equals(kind)) {
      throw new IllegalArgumentException(
          file
              + ": expected apiVersion "
              + API_VERSION
              + " and kind "
              + KIND
              + ", found apiVersion \""
              + apiVersion
              + "\" and kind \""
              + kind
              + "\"");
    }
    return new KubeProxyConfigFile(file, root).map(modeFromFlags);
  }

  private KubeProxySettings map(ProxyMode modeFromFlags) {
    var fileMode = mode();
    var mode =
        modeFromFlags != null ? modeFromFlags : fileMode != null ? fileMode : ProxyMode.nftables;
    var section = mode == ProxyMode.iptables ? "iptables" : "nftables";
    var other = mode == ProxyMode.iptables ? "nftables" : "iptables";
    var settings =
        new KubeProxySettings(
            fileMode,
            text("hostnameOverride"),
            clusterCidrs(),
            flag(section + ".masqueradeAll"),
            masqueradeBit(section + ".masqueradeBit"),
            nodePortAddresses(),
            duration(section + ".syncPeriod"),
            duration(section + ".minSyncPeriod"),
            duration("configSyncPeriod"),
            bindAddress("healthzBindAddress", 10256),
            bindAddress("metricsBindAddress", 10249),
            logFormat(),
            detectLocalMode(),
            text("detectLocal.bridgeInterface"),
            text("detectLocal.interfaceNamePrefix"),
            ignored,
            conntrack());
    SECTION_FIELDS.forEach(field -> known.add(other + "." + field));
    known.addAll(mapped);
    reportUnused(root, "", mode, other);
    return settings;
  }

  /**
   * The {@code conntrack} section. Unlike elsewhere in the file, an explicit zero is kept: for
   * kube-proxy it means "leave the host's value", not "the default".
   */
  private ConntrackSettings.FromFile conntrack() {
    return new ConntrackSettings.FromFile(
        count("conntrack.maxPerCore"),
        count("conntrack.min"),
        timeout("conntrack.tcpEstablishedTimeout"),
        timeout("conntrack.tcpCloseWaitTimeout"),
        flag("conntrack.tcpBeLiberal"),
        timeout("conntrack.udpTimeout"),
        timeout("conntrack.udpStreamTimeout"));
  }

  private Integer count(String path) {
    var node = at(path);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt() || node.asInt() < 0) {
      throw invalid(path, "expected a whole number, 0 or more, found " + node);
    }
    return node.asInt();
  }

  private Duration timeout(String path) {
    var value = text(path);
    if (value == null) {
      return null;
    }
    try {
      var duration = GoDuration.parse(value);
      if (duration.isNegative()) {
        throw invalid(path, "must not be negative, found " + value);
      }
      return duration;
    } catch (IllegalArgumentException notADuration) {
      throw invalid(path, notADuration.getMessage());
    }
  }

  private ProxyMode mode() {
    var value = text("mode");
    if (value == null) {
      return null;
    }
    try {
      return ProxyMode.valueOf(value);
    } catch (IllegalArgumentException unsupported) {
      ignored.add(
          "mode \""
              + value
              + "\" is ignored: Proxima runs in nftables or iptables mode (--mode, default nftables)");
      return null;
    }
  }

  private List<String> clusterCidrs() {
    var value = text("clusterCIDR");
    if (value == null) {
      return null;
    }
    var cidrs = new ArrayList<String>();
    for (var part : value.split(",")) {
      var cidr = part.trim();
      if (cidr.isEmpty()) {
        continue;
      }
      if (Cidr.familyOf(cidr) == null) {
        throw invalid("clusterCIDR", "\"" + cidr + "\" is not a CIDR");
      }
      cidrs.add(cidr);
    }
    return cidrs.isEmpty() ? null : cidrs;
  }

  private String detectLocalMode() {
    var value = text("detectLocalMode");
    if (value != null && DetectLocalMode.of(value).isEmpty()) {
      throw invalid(
          "detectLocalMode", "\"" + value + "\" is not one of " + DetectLocalMode.names());
    }
    return value;
  }

  private List<String> nodePortAddresses() {
    var node = at("nodePortAddresses");
    if (isUnset(node)) {
      return null;
    }
    if (!node.isArray()) {
      throw invalid("nodePortAddresses", "expected a list of CIDRs");
    }
    var cidrs = new ArrayList<String>();
    boolean all = false;
    for (var element : node) {
      var value = element.asText("").trim();
      switch (value) {
        case "all" -> all = true;
        case "primary" -> cidrs.add(value);
        case "localhost" ->
            ignored.add(
                "nodePortAddresses keyword \"localhost\" is ignored: Proxima never accepts NodePorts on loopback");
        default -> {
          if (Cidr.familyOf(value) == null) {
            throw invalid("nodePortAddresses", "\"" + value + "\" is not a CIDR or keyword");
          }
          cidrs.add(value);
        }
      }
    }
    // "all" makes every other entry moot: every address of both families. Unset stays unset, so
    // that each mode takes its own default (the primary IPs in nftables mode).
    return all ? RuleSettings.EVERY_ADDRESS : cidrs;
  }

  private Boolean flag(String path) {
    var node = at(path);
    if (isUnset(node)) {
      return null;
    }
    if (!node.isBoolean()) {
      throw invalid(path, "expected true or false, found " + node);
    }
    return node.asBoolean();
  }

  private Integer masqueradeBit(String path) {
    var node = at(path);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.canConvertToInt() || !node.isIntegralNumber()) {
      throw invalid(path, "expected a whole number, found " + node);
    }
    int bit = node.asInt();
    if (bit < 0 || bit > 31) {
      throw invalid(path, "must be 0-31, found " + bit);
    }
    return bit;
  }

  /** A duration outside the conntrack section, where zero means kube-proxy's default. */
  private Duration duration(String path) {
    var duration = timeout(path);
    return duration == null || duration.isZero() ? null : duration;
  }

  private String bindAddress(String path, int defaultPort) {
    var value = text(path);
    if (value == null) {
      return null;
    }
    // An address without a port (an older spelling) keeps kube-proxy's port.
    boolean bracketed = value.startsWith("[");
    int colons = value.length() - value.replace(":", "").length();
    if (bracketed ? value.contains("]:") : colons == 1) {
      return value;
    }
    return (value.contains(":") ? "[" + value + "]" : value) + ":" + defaultPort;
  }

  private String logFormat() {
    var value = text("logging.format");
    if (value == null) {
      return null;
    }
    if (!value.equals("text") && !value.equals("json")) {
      throw invalid("logging.format", "expected text or json, found \"" + value + "\"");
    }
    return value;
  }

  private void reportUnused(JsonNode node, String prefix, ProxyMode mode, String otherSection) {
    var names = node.fieldNames();
    while (names.hasNext()) {
      var name = names.next();
      var path = prefix + name;
      var child = node.get(name);
      if (mapped.contains(path) || isUnset(child) || isAnyAddress(path, child)) {
        continue;
      }
      boolean logging = path.equals("logging") || path.startsWith("logging.");
      if (child.isObject() && !path.equals("featureGates") && (logging || hasKnownFields(path))) {
        reportUnused(child, path + ".", mode, otherSection);
        continue;
      }
      if (!known.contains(path) && !logging) {
        ignored.add(path + " is ignored: it is not a field of " + KIND + " " + API_VERSION);
      } else if (path.startsWith(otherSection + ".")) {
        ignored.add(
            path
                + " is ignored: Proxima runs in "
                + mode
                + " mode, which reads "
                + (mode == ProxyMode.iptables ? "iptables." : "nftables.")
                + "*");
      } else {
        var reason =
            path.startsWith("logging.")
                ? "Proxima logs at the level PROXIMA_LOG_LEVEL sets"
                : "Proxima has no such setting";
        ignored.add(path + " is ignored: " + NOT_USED.getOrDefault(path, reason));
      }
    }
  }

  private boolean hasKnownFields(String path) {
    return known.stream().anyMatch(field -> field.startsWith(path + "."));
  }

  /** kubeadm writes {@code bindAddress: 0.0.0.0}, which is kube-proxy's "not set". */
  private static boolean isAnyAddress(String path, JsonNode value) {
    return path.equals("bindAddress")
        && (value.asText().equals("0.0.0.0") || value.asText().equals("::"));
  }

  /** kube-proxy's "not set": null, empty, zero, false, or a mapping of nothing but those. */
  private static boolean isUnset(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return true;
    }
    if (node.isContainerNode()) {
      for (var child : node) {
        if (!isUnset(child)) {
          return false;
        }
      }
      return true;
    }
    if (node.isTextual()) {
      try {
        return node.asText().isBlank() || GoDuration.parse(node.asText()).isZero();
      } catch (IllegalArgumentException notADuration) {
        return false;
      }
    }
    return node.isBoolean() ? !node.asBoolean() : node.isNumber() && node.asDouble() == 0;
  }

  private JsonNode at(String path) {
    mapped.add(path);
    var node = root;
    for (var part : path.split("\\.")) {
      node = node == null ? null : node.get(part);
    }
    return node;
  }

  /** Null when empty or absent. */
  private String text(String path) {
    var node = at(path);
    if (node == null || node.isNull() || !node.isValueNode()) {
      return null;
    }
    var value = node.asText().trim();
    return value.isEmpty() ? null : value;
  }

  private IllegalArgumentException invalid(String path, String problem) {
    return new IllegalArgumentException(file + ": " + path + ": " + problem);
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String describe(IOException failure) {
    return failure instanceof java.nio.file.NoSuchFileException
        ? "no such file"
        : failure.getClass().getSimpleName() + ": " + failure.getMessage();
  }
}
