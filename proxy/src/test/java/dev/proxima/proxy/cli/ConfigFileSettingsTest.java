package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.cli.LogFormat;
import dev.proxima.proxy.model.ProxyMode;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code run --config} combines kube-proxy's file with the options. */
class ConfigFileSettingsTest {
  @TempDir Path directory;

  private Path config(String body) throws Exception {
    var file = directory.resolve("config.conf");
    Files.writeString(
        file,
        "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n" + body);
    return file;
  }

  /** Parses {@code run} with these arguments and applies the file as the command does. */
  private static RunCommand run(Path file, String... args) {
    var commandLine = ProxyMain.commandLine();
    var all = new java.util.ArrayList<String>(List.of("run", "--config=" + file));
    all.addAll(List.of(args));
    commandLine.parseArgs(all.toArray(String[]::new));
    var run = commandLine.getSubcommands().get("run");
    RunCommand command = run.getCommand();
    ConfigFileSettings.apply(file, command, run.getCommandSpec());
    return command;
  }

  private static final String FILE =
      """
      mode: iptables
      hostnameOverride: node-from-file
      clusterCIDR: 10.244.0.0/16
      nodePortAddresses: [192.168.0.0/16]
      healthzBindAddress: 127.0.0.1:20256
      metricsBindAddress: 127.0.0.1:20249
      configSyncPeriod: 5m
      logging: {format: json}
      iptables: {masqueradeAll: true, masqueradeBit: 10, syncPeriod: 45s, minSyncPeriod: 2s}
      nftables: {masqueradeBit: 3, syncPeriod: 15s, minSyncPeriod: 100ms}
      """;

  @Test
  void withoutOptionsTheFileDecidesEverySettingItHolds() throws Exception {
    var run = run(config(FILE));

    assertThat(run.mode).isEqualTo(ProxyMode.iptables);
    assertThat(run.nodeName).isEqualTo("node-from-file");
    assertThat(run.rules.clusterCidrs).containsExactly("10.244.0.0/16");
    assertThat(run.rules.nodePortCidrs).containsExactly("192.168.0.0/16");
    assertThat(run.rules.masqueradeAll).isTrue();
    assertThat(run.rules.masqueradeBit).isEqualTo(10);
    assertThat(run.syncPeriod).isEqualTo(Duration.ofSeconds(45));
    assertThat(run.minSyncPeriod).isEqualTo(Duration.ofSeconds(2));
    assertThat(run.configSyncPeriod).isEqualTo(Duration.ofMinutes(5));
    assertThat(run.healthzAddress).isEqualTo(new InetSocketAddress("127.0.0.1", 20256));
    assertThat(run.metricsAddress).isEqualTo(new InetSocketAddress("127.0.0.1", 20249));
    assertThat(run.logFormat).isEqualTo(LogFormat.json);
  }

  @Test
  void optionsGivenOnTheCommandLineWinOverTheFile() throws Exception {
    var run =
        run(
            config(FILE),
            "--mode=nftables",
            "--node-name=node-from-flag",
            "--cluster-cidr=10.0.0.0/8",
            "--sync-period=1m",
            "--healthz-bind-address=127.0.0.1:30256",
            "--log-format=text");

    assertThat(run.mode).isEqualTo(ProxyMode.nftables);
    assertThat(run.nodeName).isEqualTo("node-from-flag");
    assertThat(run.rules.clusterCidrs).containsExactly("10.0.0.0/8");
    assertThat(run.syncPeriod).isEqualTo(Duration.ofMinutes(1));
    assertThat(run.healthzAddress).isEqualTo(new InetSocketAddress("127.0.0.1", 30256));
    assertThat(run.logFormat).isEqualTo(LogFormat.text);
    // --mode nftables makes the file's nftables section apply where no option overrides it.
    assertThat(run.rules.masqueradeBit).isEqualTo(3);
    assertThat(run.minSyncPeriod).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aBindAddressTheProxyCannotUseIsAnErrorNamingTheFileAndField() throws Exception {
    var file = config("metricsBindAddress: \"localhost:http\"\n");

    assertThatThrownBy(() -> run(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(file + ": metricsBindAddress: ");
  }

  @Test
  void anUnsetNodePortAddressesMeansThePrimaryIpsInNftablesModeAsUpstream() throws Exception {
    var nftables = run(config("mode: nftables\nhostnameOverride: n1\n"));
    var iptables = run(config("mode: iptables\nhostnameOverride: n1\n"));

    assertThat(nftables.config().rules().nodePortCidrs()).containsExactly("primary");
    assertThat(iptables.config().rules().nodePortCidrs())
        .as("iptables keeps every address")
        .isEmpty();
  }

  @Test
  void nodePortAddressesAllInTheFileWidensTheNftablesModeToEveryAddress() throws Exception {
    var run = run(config("mode: nftables\nhostnameOverride: n1\nnodePortAddresses: [all]\n"));

    assertThat(run.config().rules().nodePortCidrs()).containsExactly("0.0.0.0/0", "::/0");
  }
}
