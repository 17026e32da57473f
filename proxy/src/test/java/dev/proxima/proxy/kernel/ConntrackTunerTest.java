package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.conntrack.ConntrackSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tuner against a directory standing in for /proc/sys/net/netfilter. */
class ConntrackTunerTest {
  @TempDir Path sysctls;

  private void host(String key, long value) throws Exception {
    Files.writeString(sysctls.resolve(key), value + "\n");
  }

  private String value(String key) throws Exception {
    return Files.readString(sysctls.resolve(key)).trim();
  }

  @Test
  void kubeProxysDefaultsAreWrittenWhereTheyRaiseOrDifferAndAHigherMaxIsKept() throws Exception {
    host("nf_conntrack_max", 2000000);
    host("nf_conntrack_tcp_timeout_established", 432000);
    host("nf_conntrack_tcp_timeout_close_wait", 60);
    host("nf_conntrack_udp_timeout", 30);

    var failed = ConntrackTuner.apply(ConntrackSettings.defaults(), 4, new SysctlFiles(sysctls));

    assertThat(failed).isEmpty();
    assertThat(value("nf_conntrack_max")).isEqualTo("2000000");
    assertThat(value("nf_conntrack_tcp_timeout_established")).isEqualTo("86400");
    assertThat(value("nf_conntrack_tcp_timeout_close_wait")).isEqualTo("3600");
    assertThat(value("nf_conntrack_udp_timeout")).as("0 leaves it").isEqualTo("30");
  }

  @Test
  void whatCannotBeWrittenIsReportedNotFatal() throws Exception {
    var missing = new SysctlFiles(sysctls.resolve("read-only"));

    var failed = ConntrackTuner.apply(ConntrackSettings.defaults(), 4, missing);

    assertThat(failed)
        .containsExactly(
            "net.netfilter.nf_conntrack_max=131072",
            "net.netfilter.nf_conntrack_tcp_timeout_established=86400",
            "net.netfilter.nf_conntrack_tcp_timeout_close_wait=3600");
  }

  @Test
  void settingEverythingToZeroTouchesNothing() throws Exception {
    host("nf_conntrack_max", 1);

    assertThat(ConntrackTuner.apply(ConntrackSettings.none(), 4, new SysctlFiles(sysctls)))
        .isEmpty();
    assertThat(value("nf_conntrack_max")).isEqualTo("1");
  }
}
