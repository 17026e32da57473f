package dev.proxima.proxy.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.cli.LogFormat;
import dev.proxima.proxy.config.KubeProxyConfigFile;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Applies kube-proxy's configuration file to {@code run}'s options: a setting from the file is used
 * unless its option was given on the command line or through its environment variable.
 */
final class ConfigFileSettings {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)");

  /** Returns one sentence per field of the file that Proxima ignores. */
  static List<String> apply(Path file, RunCommand run, CommandSpec spec) {
    var read = KubeProxyConfigFile.read(file, explicit(spec, "--mode") ? run.mode : null);
    var conntrack = read.conntrack();
    var values = new LinkedHashMap<String, Object>();
    values.put("--mode", read.mode());
    values.put("--node-name", read.nodeName());
    values.put("--cluster-cidr", read.clusterCidrs());
    values.put("--masquerade-all", read.masqueradeAll());
    values.put("--masquerade-bit", read.masqueradeBit());
    values.put("--nodeport-addresses", read.nodePortAddresses());
    values.put("--detect-local-mode", read.detectLocalMode());
    values.put("--pod-bridge-interface", read.podBridgeInterface());
    values.put("--pod-interface-name-prefix", read.podInterfaceNamePrefix());
    values.put("--sync-period", read.syncPeriod());
    values.put("--min-sync-period", read.minSyncPeriod());
    values.put("--config-sync-period", read.configSyncPeriod());
    values.put(
        "--healthz-bind-address",
        bindAddress(file, "healthzBindAddress", read.healthzBindAddress()));
    values.put(
        "--metrics-bind-address",
        bindAddress(file, "metricsBindAddress", read.metricsBindAddress()));
    values.put(
        "--log-format", read.logFormat() == null ? null : LogFormat.valueOf(read.logFormat()));
    values.put("--conntrack-max-per-core", conntrack.maxPerCore());
    values.put("--conntrack-min", conntrack.min());
    values.put("--conntrack-tcp-timeout-established", conntrack.tcpEstablishedTimeout());
    values.put("--conntrack-tcp-timeout-close-wait", conntrack.tcpCloseWaitTimeout());
    values.put("--conntrack-tcp-be-liberal", conntrack.tcpBeLiberal());
    values.put("--conntrack-udp-timeout", conntrack.udpTimeout());
    values.put("--conntrack-udp-timeout-stream", conntrack.udpStreamTimeout());
    values.forEach(
        (option, value) -> {
          if (value != null && !explicit(spec, option)) {
            spec.findOption(option).setValue(value);
          }
        });
    return read.ignored();
  }

  private static InetSocketAddress bindAddress(Path file, String field, String value) {
    if (value == null) {
      return null;
    }
    try {
      return new BindAddressConverter().convert(value);
    } catch (CommandLine.TypeConversionException | IllegalArgumentException invalid) {
      throw new IllegalArgumentException(file + ": " + field + ": " + invalid.getMessage());
    }
  }

  /** Given on the command line, or through the environment variable its default names. */
  private static boolean explicit(CommandSpec spec, String name) {
    var option = spec.findOption(name);
    if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
      return true;
    }
    var env = ENV.matcher(String.valueOf(option.defaultValueString(false)));
    if (!env.find()) {
      return false;
    }
    var value = System.getenv(env.group(1));
    return value != null && !value.isEmpty();
  }
}
