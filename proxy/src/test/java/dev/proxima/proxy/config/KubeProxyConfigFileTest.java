package dev.proxima.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.ProxyMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeProxyConfigFileTest {
  private static final String HEADER =
      "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

  private static KubeProxySettings parse(String body) {
    return KubeProxyConfigFile.parse("kube-proxy.conf", HEADER + body, null);
  }

  @Test
  void kubeadmsDefaultFileMapsTheClusterCidrAndNamesOnlyTheClientKubeconfigAsIgnored()
      throws Exception {
    var settings =
        KubeProxyConfigFile.read(
            Path.of("src/test/resources/kube-proxy/kubeadm-config.conf"), null);

    assertThat(settings.clusterCidrs()).containsExactly("10.244.0.0/16");
    // Everything else is kube-proxy's "use the default": Proxima's defaults apply.
    assertThat(settings.mode()).isNull();
    assertThat(settings.syncPeriod()).isNull();
    assertThat(settings.minSyncPeriod()).isNull();
    assertThat(settings.nodePortAddresses()).isNull();
    assertThat(settings.healthzBindAddress()).isNull();
    assertThat(settings.ignored())
        .containsExactly(
            "clientConnection.kubeconfig is ignored: Proxima connects with --kubeconfig or, in a"
                + " pod, its service account");
  }

  @Test
  void everyFieldProximaImplementsIsMappedFromTheSectionOfTheChosenMode() throws Exception {
    var settings =
        parse(
            """
            mode: iptables
            hostnameOverride: node-a
            clusterCIDR: "10.244.0.0/16, fd00:10:244::/56"
            detectLocalMode: ClusterCIDR
            nodePortAddresses: [192.168.0.0/16, "fd00::/64"]
            healthzBindAddress: 0.0.0.0:10266
            metricsBindAddress: "[::1]:10259"
            configSyncPeriod: 10m0s
            logging: {format: json}
            iptables:
              masqueradeAll: true
              masqueradeBit: 12
              syncPeriod: 1m30s
              minSyncPeriod: 500ms
            """);

    assertThat(settings.mode()).isEqualTo(ProxyMode.iptables);
    assertThat(settings.nodeName()).isEqualTo("node-a");
    assertThat(settings.clusterCidrs()).containsExactly("10.244.0.0/16", "fd00:10:244::/56");
    assertThat(settings.nodePortAddresses()).containsExactly("192.168.0.0/16", "fd00::/64");
    assertThat(settings.healthzBindAddress()).isEqualTo("0.0.0.0:10266");
    assertThat(settings.metricsBindAddress()).isEqualTo("[::1]:10259");
    assertThat(settings.configSyncPeriod()).isEqualTo(Duration.ofMinutes(10));
    assertThat(settings.logFormat()).isEqualTo("json");
    assertThat(settings.masqueradeAll()).isTrue();
    assertThat(settings.masqueradeBit()).isEqualTo(12);
    assertThat(settings.syncPeriod()).isEqualTo(Duration.ofSeconds(90));
    assertThat(settings.minSyncPeriod()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.ignored()).isEmpty();
  }

  @Test
  void theModeGivenOnTheCommandLineDecidesWhichSectionApplies() throws Exception {
    var text =
        HEADER
            + """
            mode: iptables
            iptables: {syncPeriod: 1m}
            nftables: {syncPeriod: 2m}
            """;

    var nft = KubeProxyConfigFile.parse("f", text, ProxyMode.nftables);

    assertThat(nft.syncPeriod()).isEqualTo(Duration.ofMinutes(2));
    assertThat(nft.ignored())
        .containsExactly(
            "iptables.syncPeriod is ignored: Proxima runs in nftables mode, which reads nftables.*");
  }

  @Test
  void eachIgnoredFieldThatIsSetIsNamedOnceWithTheReason() throws Exception {
    var settings =
        parse(
            """
            mode: ipvs
            bindAddress: 192.168.1.10
            oomScoreAdj: -999
            featureGates: {SomeGate: true}
            conntrack:
              maxPerCore: 32768
              tcpEstablishedTimeout: 24h0m0s
            ipvs: {scheduler: rr}
            nodePortAddresses: [primary, localhost]
            someFutureField: 1
            """);

    assertThat(settings.mode()).isNull();
    assertThat(settings.nodePortAddresses()).containsExactly("primary");
    assertThat(settings.ignored())
        .containsExactlyInAnyOrder(
            "mode \"ipvs\" is ignored: Proxima runs in nftables or iptables mode (--mode, default"
                + " nftables)",
            "bindAddress is ignored: Proxima takes the node's addresses from its Node object",
            "oomScoreAdj is ignored: set the pod's priority and resources instead",
            "featureGates is ignored: Proxima has no feature gates",
            "ipvs.scheduler is ignored: Proxima has no IPVS mode",
            "nodePortAddresses keyword \"localhost\" is ignored: Proxima never accepts NodePorts"
                + " on loopback",
            "someFutureField is ignored: it is not a field of KubeProxyConfiguration"
                + " kubeproxy.config.k8s.io/v1alpha1");
  }

  @Test
  void aMisspelledFieldOfAKnownSectionIsNamedAsNoField() throws Exception {
    var settings = parse("ipvs: {sheduler: rr}\nconntrack: {mni: 5}\nnftables: {syncPriod: 1m}\n");

    assertThat(settings.ignored())
        .containsExactly(
            "ipvs.sheduler is ignored: it is not a field of KubeProxyConfiguration"
                + " kubeproxy.config.k8s.io/v1alpha1",
            "conntrack.mni is ignored: it is not a field of KubeProxyConfiguration"
                + " kubeproxy.config.k8s.io/v1alpha1",
            "nftables.syncPriod is ignored: it is not a field of KubeProxyConfiguration"
                + " kubeproxy.config.k8s.io/v1alpha1");
  }

  @Test
  void theConntrackSectionIsMappedWithItsExplicitZeros() throws Exception {
    var settings =
        parse(
            """
            conntrack:
              maxPerCore: 0
              min: 262144
              tcpEstablishedTimeout: 2h0m0s
              tcpCloseWaitTimeout: 0s
              tcpBeLiberal: true
              udpTimeout: 30s
            """);

    var conntrack = settings.conntrack();
    assertThat(conntrack.maxPerCore()).as("0: leave nf_conntrack_max").isZero();
    assertThat(conntrack.min()).isEqualTo(262144);
    assertThat(conntrack.tcpEstablishedTimeout()).isEqualTo(java.time.Duration.ofHours(2));
    assertThat(conntrack.tcpCloseWaitTimeout()).as("0s: leave it").isZero();
    assertThat(conntrack.tcpBeLiberal()).isTrue();
    assertThat(conntrack.udpTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(conntrack.udpStreamTimeout()).as("absent: the default").isNull();
    assertThat(settings.ignored()).isEmpty();
  }

  @Test
  void everyDetectLocalModeIsMappedWithItsInterface() throws Exception {
    var bridge = parse("detectLocalMode: BridgeInterface\ndetectLocal: {bridgeInterface: cbr0}\n");
    var prefix =
        parse("detectLocalMode: InterfaceNamePrefix\ndetectLocal: {interfaceNamePrefix: veth}\n");

    assertThat(parse("detectLocalMode: NodeCIDR\n").detectLocalMode()).isEqualTo("NodeCIDR");
    assertThat(bridge.detectLocalMode()).isEqualTo("BridgeInterface");
    assertThat(bridge.podBridgeInterface()).isEqualTo("cbr0");
    assertThat(prefix.detectLocalMode()).isEqualTo("InterfaceNamePrefix");
    assertThat(prefix.podInterfaceNamePrefix()).isEqualTo("veth");
    assertThat(bridge.ignored()).isEmpty();
    assertThat(prefix.ignored()).isEmpty();
  }

  @Test
  void anUnknownDetectLocalModeIsAnErrorNamingTheModes() {
    assertThatThrownBy(() -> parse("detectLocalMode: PodCIDR\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(
            "detectLocalMode: \"PodCIDR\" is not one of ClusterCIDR, NodeCIDR, BridgeInterface,"
                + " InterfaceNamePrefix");
  }

  @Test
  void nodePortAddressesAllMeansEveryAddressOfBothFamilies() throws Exception {
    assertThat(parse("nodePortAddresses: [all, 10.0.0.0/8]\n").nodePortAddresses())
        .containsExactly("0.0.0.0/0", "::/0");
  }

  @Test
  void aBindAddressWithoutAPortKeepsKubeProxysPort() throws Exception {
    var settings = parse("healthzBindAddress: 10.1.2.3\nmetricsBindAddress: \"::1\"\n");

    assertThat(settings.healthzBindAddress()).isEqualTo("10.1.2.3:10256");
    assertThat(settings.metricsBindAddress()).isEqualTo("[::1]:10249");
  }

  @Test
  void anotherApiVersionOrKindIsAnErrorNamingTheFile() {
    assertThatThrownBy(
            () ->
                KubeProxyConfigFile.parse(
                    "/etc/kube-proxy/config.conf",
                    "apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n",
                    null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "/etc/kube-proxy/config.conf: expected apiVersion kubeproxy.config.k8s.io/v1alpha1 and"
                + " kind KubeProxyConfiguration, found apiVersion"
                + " \"kubeproxy.config.k8s.io/v1alpha2\" and kind \"KubeProxyConfiguration\"");
  }

  @Test
  void theWholeConfigMapIsAnErrorThatSaysWhichKeyToGive() {
    assertThatThrownBy(
            () ->
                KubeProxyConfigFile.parse(
                    "cm.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: {}\n", null))
        .hasMessageStartingWith("cm.yaml: this is a ConfigMap; give the file its config.conf key");
  }

  @Test
  void malformedYamlIsAnErrorWithLineAndColumn() {
    assertThatThrownBy(() -> KubeProxyConfigFile.parse("f.yaml", HEADER + "mode: [\n", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("f.yaml: not valid YAML at line ")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aValueOfTheWrongShapeIsAnErrorNamingTheFileAndField() {
    assertThatThrownBy(() -> parse("clusterCIDR: 10.244.0.0/33\n"))
        .hasMessage("kube-proxy.conf: clusterCIDR: \"10.244.0.0/33\" is not a CIDR");
    assertThatThrownBy(() -> parse("nftables: {syncPeriod: soon}\n"))
        .hasMessage(
            "kube-proxy.conf: nftables.syncPeriod: \"soon\" is not a duration (e.g. 30s, 1m0s,"
                + " 500ms)");
    assertThatThrownBy(() -> parse("nftables: {masqueradeBit: 40}\n"))
        .hasMessage("kube-proxy.conf: nftables.masqueradeBit: must be 0-31, found 40");
    assertThatThrownBy(() -> parse("logging: {format: xml}\n"))
        .hasMessage("kube-proxy.conf: logging.format: expected text or json, found \"xml\"");
  }

  @Test
  void aMissingFileIsAnErrorNamingIt(@TempDir Path directory) {
    var missing = directory.resolve("config.conf");

    assertThatThrownBy(() -> KubeProxyConfigFile.read(missing, null))
        .hasMessage(missing + ": cannot read the kube-proxy configuration: no such file");
    assertThat(Files.exists(missing)).isFalse();
  }

  @Test
  void goDurationsParseAsKubernetesWritesThem() {
    assertThat(GoDuration.parse("1h2m3.5s")).isEqualTo(Duration.ofMillis(3_723_500));
    assertThat(GoDuration.parse("0")).isZero();
    assertThat(GoDuration.parse("250us")).isEqualTo(Duration.ofNanos(250_000));
    assertThatThrownBy(() -> GoDuration.parse("5 minutes"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
