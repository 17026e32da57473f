package dev.proxima.proxy.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.proxima.proxy.testing.ConntrackFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The tuner against a directory standing in for /proc/sys/net/netfilter. */
class ConntrackTunerTest {
  /** A sysctl no process may write, root included: the kernel's mode 0444 holds for everyone. */
  private static final Path READ_ONLY_SYSCTL = Path.of("/proc/sys/kernel/osrelease");

  @TempDir Path sysctls;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ConntrackTuner.class);

  @BeforeEach
  void capture() {
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
  }

  private void host(String key, long value) throws Exception {
    Files.writeString(sysctls.resolve(key), value + "\n");
  }

  private String value(String key) throws Exception {
    return Files.readString(sysctls.resolve(key)).trim();
  }

  private void readOnly(String key) throws Exception {
    assumeTrue(Files.isReadable(READ_ONLY_SYSCTL), "no /proc/sys here");
    Files.createSymbolicLink(sysctls.resolve(key), READ_ONLY_SYSCTL);
  }

  @Test
  void kubeProxysDefaultsAreWrittenWhereTheyRaiseOrDifferAndAHigherMaxIsKept() throws Exception {
    host("nf_conntrack_max", 2000000);
    host("nf_conntrack_tcp_timeout_established", 432000);
    host("nf_conntrack_tcp_timeout_close_wait", 60);
    host("nf_conntrack_udp_timeout", 30);

    var failed = ConntrackTuner.apply(ConntrackFixtures.DEFAULTS, 4, new SysctlFiles(sysctls));

    assertThat(failed).isEmpty();
    assertThat(value("nf_conntrack_max")).isEqualTo("2000000");
    assertThat(value("nf_conntrack_tcp_timeout_established")).isEqualTo("86400");
    assertThat(value("nf_conntrack_tcp_timeout_close_wait")).isEqualTo("3600");
    assertThat(value("nf_conntrack_udp_timeout")).as("0 leaves it").isEqualTo("30");
  }

  @Test
  void aMissingSysctlIsAWarningNotFatal() throws Exception {
    var missing = new SysctlFiles(sysctls.resolve("no-conntrack-module"));

    var failed = ConntrackTuner.apply(ConntrackFixtures.DEFAULTS, 4, missing);

    assertThat(failed)
        .containsExactly(
            "net.netfilter.nf_conntrack_max=131072",
            "net.netfilter.nf_conntrack_tcp_timeout_established=86400",
            "net.netfilter.nf_conntrack_tcp_timeout_close_wait=3600");
    assertThat(appender.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.WARN);
  }

  @Test
  void readOnlySysctlsAreOneInfoNamingWhatToSetOnTheNodeAndNoWarning() throws Exception {
    readOnly("nf_conntrack_max");
    readOnly("nf_conntrack_tcp_timeout_established");
    host("nf_conntrack_tcp_timeout_close_wait", 60);

    var untuned = ConntrackTuner.apply(ConntrackFixtures.DEFAULTS, 4, new SysctlFiles(sysctls));

    assertThat(untuned)
        .containsExactly(
            "net.netfilter.nf_conntrack_max=131072",
            "net.netfilter.nf_conntrack_tcp_timeout_established=86400");
    assertThat(value("nf_conntrack_tcp_timeout_close_wait"))
        .as("what is writable is still written")
        .isEqualTo("3600");
    assertThat(appender.list).extracting(ILoggingEvent::getLevel).doesNotContain(Level.WARN);
    var notTuned =
        appender.list.stream()
            .filter(event -> event.getFormattedMessage().startsWith("Conntrack sysctls not tuned"))
            .toList();
    assertThat(notTuned).hasSize(1);
    assertThat(notTuned.get(0).getLevel()).isEqualTo(Level.INFO);
    assertThat(notTuned.get(0).getKeyValuePairs().toString())
        .contains("net.netfilter.nf_conntrack_max=131072")
        .contains("net.netfilter.nf_conntrack_tcp_timeout_established=86400");
  }

  @Test
  void valuesTheNodeAlreadyHasAreNeitherWrittenNorMentioned() throws Exception {
    host("nf_conntrack_max", 2000000);
    host("nf_conntrack_tcp_timeout_established", 86400);
    host("nf_conntrack_tcp_timeout_close_wait", 3600);

    assertThat(ConntrackTuner.apply(ConntrackFixtures.DEFAULTS, 4, new SysctlFiles(sysctls)))
        .isEmpty();
    assertThat(appender.list).isEmpty();
  }

  @Test
  void settingEverythingToZeroTouchesNothing() throws Exception {
    host("nf_conntrack_max", 1);

    assertThat(ConntrackTuner.apply(ConntrackFixtures.NONE, 4, new SysctlFiles(sysctls))).isEmpty();
    assertThat(value("nf_conntrack_max")).isEqualTo("1");
  }
}
