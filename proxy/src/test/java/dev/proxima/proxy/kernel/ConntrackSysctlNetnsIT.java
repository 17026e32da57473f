package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import dev.proxima.proxy.conntrack.ConntrackTuning;
import dev.proxima.proxy.testing.ConntrackFixtures;
import dev.proxima.proxy.testing.RootTier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tuner in a network namespace of its own, as root: the kernel keeps the conntrack timeouts and
 * tcp_be_liberal per namespace, so kube-proxy's defaults are really written there and the host's
 * values stay as they were. (nf_conntrack_max is read-only outside the host's namespace.)
 */
@RootTier
class ConntrackSysctlNetnsIT {
  private final String namespace = "ctk" + ProcessHandle.current().pid();

  private static String run(String... command) throws Exception {
    var process = new ProcessBuilder(command).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    return output;
  }

  @BeforeEach
  void namespace() throws Exception {
    assumeTrue(
        Files.isReadable(Path.of("/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_established")),
        "nf_conntrack is not loaded");
    run("ip", "netns", "add", namespace);
  }

  @AfterEach
  void remove() throws Exception {
    new ProcessBuilder("ip", "netns", "del", namespace).start().waitFor(30, TimeUnit.SECONDS);
  }

  private String inNamespace(String key) throws Exception {
    return run("ip", "netns", "exec", namespace, "cat", "/proc/sys/net/netfilter/" + key).trim();
  }

  private static String onHost(String key) throws IOException {
    return Files.readString(Path.of("/proc/sys/net/netfilter", key)).trim();
  }

  @Test
  void kubeProxysDefaultsAreWrittenInTheNamespaceAndTheHostKeepsItsValues() throws Exception {
    run(
        "ip",
        "netns",
        "exec",
        namespace,
        "sh",
        "-c",
        "echo 432000 > /proc/sys/net/netfilter/nf_conntrack_tcp_timeout_established;"
            + " echo 60 > /proc/sys/net/netfilter/nf_conntrack_tcp_timeout_close_wait;"
            + " echo 0 > /proc/sys/net/netfilter/nf_conntrack_tcp_be_liberal");
    var hostEstablished = onHost(ConntrackTuning.TCP_ESTABLISHED);
    var hostLiberal = onHost(ConntrackTuning.TCP_BE_LIBERAL);

    var command = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            TuneHere.class.getName()));
    var output = run(command.toArray(String[]::new));

    // nf_conntrack_max may be listed: it is the host's, read-only in a namespace.
    var failed = output.lines().filter(line -> line.startsWith("failed=")).findFirst();
    assertThat(failed)
        .hasValueSatisfying(
            line -> assertThat(line).doesNotContain("timeout").doesNotContain("liberal"));
    assertThat(inNamespace(ConntrackTuning.TCP_ESTABLISHED)).isEqualTo("86400");
    assertThat(inNamespace(ConntrackTuning.TCP_CLOSE_WAIT)).isEqualTo("3600");
    assertThat(inNamespace(ConntrackTuning.TCP_BE_LIBERAL)).isEqualTo("1");
    assertThat(onHost(ConntrackTuning.TCP_ESTABLISHED)).isEqualTo(hostEstablished);
    assertThat(onHost(ConntrackTuning.TCP_BE_LIBERAL)).isEqualTo(hostLiberal);
  }

  @Test
  void aReadOnlyProcSysAsInAnUnprivilegedPodIsOneInfoNamingTheSettingsAndNoWarning()
      throws Exception {
    var command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "unshare", "-m"));
    command.addAll(
        List.of(
            "sh",
            "-c",
            "mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec \"$@\"",
            "sh",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            TuneHere.class.getName()));

    var output = run(command.toArray(String[]::new));

    assertThat(output.lines().filter(line -> line.contains(" WARN "))).isEmpty();
    assertThat(output.lines().filter(line -> line.contains("Conntrack sysctls not tuned")))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .contains(" INFO ")
                    .contains("net.netfilter.nf_conntrack_tcp_timeout_established=86400")
                    .contains("net.netfilter.nf_conntrack_tcp_be_liberal=1"));
    assertThat(output).contains("failed=[net.netfilter.");
  }

  /** Runs inside the namespace: kube-proxy's defaults plus tcp_be_liberal, on /proc/sys. */
  public static final class TuneHere {
    public static void main(String[] args) {
      var defaults = ConntrackFixtures.DEFAULTS;
      var settings =
          new ConntrackSettings(
              defaults.maxPerCore(),
              defaults.min(),
              defaults.tcpEstablishedTimeout(),
              defaults.tcpCloseWaitTimeout(),
              true,
              defaults.udpTimeout(),
              defaults.udpStreamTimeout());
      System.out.println("failed=" + ConntrackTuner.apply(settings, 2, SysctlFiles.netfilter()));
    }
  }
}
