package dev.proxima.proxy.cli;

import dev.proxima.cli.BindAddressConverter;
import dev.proxima.cli.LogFormat;
import dev.proxima.proxy.config.ConfigFileException;
import dev.proxima.proxy.config.KubeProxyConfigFile;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Applies kube-proxy's configuration file to {@code run}'s options: a setting from the file is used
 * unless its option was given on the command line or through its environment variable.
 */
final class ConfigFileSettings {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)");

  private final CommandSpec spec;

  private ConfigFileSettings(CommandSpec spec) {
    this.spec = spec;
  }

  /**
   * @return one sentence per field of the file that Proxima ignores
   * @throws ConfigFileException when the file cannot be used; the message names it
   */
  static List<String> apply(Path file, RunCommand run, CommandSpec spec)
      throws ConfigFileException {
    var settings = new ConfigFileSettings(spec);
    var read = KubeProxyConfigFile.read(file, settings.explicit("--mode") ? run.mode : null);
    settings.set("--mode", read.mode(), value -> run.mode = value);
    settings.set("--node-name", read.nodeName(), value -> run.nodeName = value);
    settings.set("--cluster-cidr", read.clusterCidrs(), value -> run.rules.clusterCidrs = value);
    settings.set(
        "--masquerade-all", read.masqueradeAll(), value -> run.rules.masqueradeAll = value);
    settings.set(
        "--masquerade-bit", read.masqueradeBit(), value -> run.rules.masqueradeBit = value);
    settings.set(
        "--nodeport-addresses", read.nodePortAddresses(), value -> run.rules.nodePortCidrs = value);
    settings.set(
        "--detect-local-mode", read.detectLocalMode(), value -> run.rules.detectLocalMode = value);
    settings.set(
        "--pod-bridge-interface",
        read.podBridgeInterface(),
        value -> run.rules.podBridgeInterface = value);
    settings.set(
        "--pod-interface-name-prefix",
        read.podInterfaceNamePrefix(),
        value -> run.rules.podInterfaceNamePrefix = value);
    settings.set("--sync-period", read.syncPeriod(), value -> run.syncPeriod = value);
    settings.set("--min-sync-period", read.minSyncPeriod(), value -> run.minSyncPeriod = value);
    settings.set(
        "--config-sync-period", read.configSyncPeriod(), value -> run.configSyncPeriod = value);
    settings.set(
        "--healthz-bind-address",
        bindAddress(file, "healthzBindAddress", read.healthzBindAddress()),
        value -> run.healthzAddress = value);
    settings.set(
        "--metrics-bind-address",
        bindAddress(file, "metricsBindAddress", read.metricsBindAddress()),
        value -> run.metricsAddress = value);
    settings.set(
        "--log-format",
        read.logFormat() == null ? null : LogFormat.valueOf(read.logFormat()),
        value -> run.logFormat = value);
    var conntrack = read.conntrack();
    settings.set(
        "--conntrack-max-per-core",
        conntrack.maxPerCore(),
        value -> run.conntrack.maxPerCore = value);
    settings.set("--conntrack-min", conntrack.min(), value -> run.conntrack.min = value);
    settings.set(
        "--conntrack-tcp-timeout-established",
        conntrack.tcpEstablishedTimeout(),
        value -> run.conntrack.tcpEstablishedTimeout = value);
    settings.set(
        "--conntrack-tcp-timeout-close-wait",
        conntrack.tcpCloseWaitTimeout(),
        value -> run.conntrack.tcpCloseWaitTimeout = value);
    settings.set(
        "--conntrack-tcp-be-liberal",
        conntrack.tcpBeLiberal(),
        value -> run.conntrack.tcpBeLiberal = value);
    settings.set(
        "--conntrack-udp-timeout",
        conntrack.udpTimeout(),
        value -> run.conntrack.udpTimeout = value);
    settings.set(
        "--conntrack-udp-timeout-stream",
        conntrack.udpStreamTimeout(),
        value -> run.conntrack.udpStreamTimeout = value);
    return read.ignored();
  }

  private static java.net.InetSocketAddress bindAddress(Path file, String field, String value)
      throws ConfigFileException {
    if (value == null) {
      return null;
    }
    try {
      return new BindAddressConverter().convert(value);
    } catch (CommandLine.TypeConversionException | IllegalArgumentException invalid) {
      throw new ConfigFileException(file + ": " + field + ": " + invalid.getMessage());
    }
  }

  private <T> void set(String option, T value, Consumer<T> setter) {
    if (value != null && !explicit(option)) {
      setter.accept(value);
    }
  }

  /** Given on the command line, or through the environment variable its default names. */
  private boolean explicit(String name) {
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
