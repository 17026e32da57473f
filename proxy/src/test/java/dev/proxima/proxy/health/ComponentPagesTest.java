package dev.proxima.proxy.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComponentPagesTest {
  @Test
  void statuszSaysWhatRunsSinceWhenAndWhichPathsThereAre() {
    var started = Instant.parse("2026-12-07T11:00:00Z");

    var page =
        ComponentPages.statusz(
            "proxima-proxy",
            started,
            started.plus(Duration.ofSeconds(3723)),
            "0.1.0 (abc1234)",
            List.of("/healthz", "/livez", "/metrics"),
            List.of());

    assertThat(page.lines())
        .containsExactly(
            "proxima-proxy statusz",
            ComponentPages.WARNING,
            "",
            "Started: Mon Dec 7 11:00:00 UTC 2026",
            "Up: 1 hr 02 min 03 sec",
            "Java version: " + Runtime.version(),
            "Binary version: 0.1.0 (abc1234)",
            "Paths: /healthz /livez /metrics");
  }

  @Test
  void statuszNamesTheSysctlsTheProxyCouldNotSetWithTheValuesItWanted() {
    var started = Instant.parse("2026-12-07T11:00:00Z");

    var page =
        ComponentPages.statusz(
            "proxima-proxy",
            started,
            started,
            "0.1.0 (abc1234)",
            List.of("/healthz"),
            List.of(
                "net.netfilter.nf_conntrack_max=131072",
                "net.netfilter.nf_conntrack_tcp_be_liberal=1"));

    assertThat(page.lines())
        .endsWith(
            "Paths: /healthz",
            "Sysctls not set (set them on the node): net.netfilter.nf_conntrack_max=131072"
                + " net.netfilter.nf_conntrack_tcp_be_liberal=1");
  }

  @Test
  void flagzListsEveryFlagSortedOnOneLineEach() {
    var page =
        ComponentPages.flagz(
            "proxima-proxy",
            Map.of("sync-period", "PT30S", "detect-local-mode", "NodeCIDR", "odd", "a\nb"));

    assertThat(page.lines())
        .containsExactly(
            "proxima-proxy flags",
            ComponentPages.WARNING,
            "",
            "detect-local-mode=NodeCIDR",
            "odd=a b",
            "sync-period=PT30S");
  }
}
