package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real tools accept every rendered buffer: {@code iptables-restore --test} (and {@code
 * ip6tables-restore --test}) in a throw-away network namespace, and one buffer loaded for real and
 * listed back with {@code iptables-save}. Needs the tools and root; without them the tests are
 * reported as skipped, not passed.
 */
@RootTier
class IptablesValidationTest {
  @TempDir Path dir;

  // Checked per test, not in @BeforeAll: Surefire reports a class-level abort as zero tests run,
  // where every test should show up as skipped.
  @BeforeEach
  void requireToolsAndRoot() {
    for (String tool :
        List.of(
            "ip",
            "iptables",
            "iptables-restore",
            "iptables-save",
            "ip6tables",
            "ip6tables-restore",
            "ip6tables-save")) {
      assumeTrue(HostTools.onPath(tool).isPresent(), tool + " is not on PATH");
    }
  }

  static Stream<IptablesCases.Case> cases() {
    return IptablesCases.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theRestoreToolAcceptsTheRenderedBuffer(IptablesCases.Case renderCase) {
    inNamespace(
        namespace -> {
          restore(namespace, renderCase.config(), renderCase.buffer(), "--test");
          String withJumps =
              IptablesRenderer.renderWithJumps(renderCase.config(), renderCase.services())
                  .filterAndNat();
          restore(namespace, renderCase.config(), withJumps, "--test");
          // iptables-nft 1.8.9's --test does not check that jump targets exist; a real load does.
          restore(namespace, renderCase.config(), withJumps, "--noflush");
        });
  }

  @Test
  void aLoadedBufferListsBackWithItsChainsRulesAndJumps() {
    IptablesCases.Case everything =
        IptablesCases.all().stream()
            .filter(c -> c.name().equals("v4 everything"))
            .findFirst()
            .orElseThrow();
    FamilySettings config = everything.config();
    inNamespace(
        namespace -> {
          restore(
              namespace,
              config,
              IptablesRenderer.renderWithJumps(config, everything.services()).filterAndNat(),
              "--noflush");
          // The plain buffer reloads over it without duplicating anything.
          restore(namespace, config, everything.buffer(), "--noflush");
          String saved = save(namespace, config);

          for (String line : everything.buffer().lines().toList()) {
            if (line.startsWith(":")) {
              assertThat(saved).contains(line.substring(0, line.indexOf(' ')) + " - [");
            }
          }
          String svc4 =
              IptablesChains.SVC_PREFIX
                  + IptablesChains.serviceHash(IptablesCases.twoEndpoints().port().name());
          assertThat(saved.lines().filter(l -> l.startsWith("-A " + svc4 + " ")))
              .hasSize(3)
              .anyMatch(l -> l.contains("--probability 0.5"));
          assertThat(saved)
              .contains(
                  "-A PREROUTING -m comment --comment \"proxima service portals\""
                      + " -j PROXIMA-SERVICES")
              .contains("-j MASQUERADE --random-fully")
              .contains("--reject-with icmp-port-unreachable");
          assertThat(saved.lines().filter(l -> l.startsWith("-A PROXIMA-MARK-MASQ "))).hasSize(1);
          // Every jump renderWithJumps inserted is found by the -C check the live proxy runs.
          for (JumpRule jump : IptablesRenderer.jumpRules(config)) {
            List<String> check = new ArrayList<>(List.of(command(config), "-w"));
            check.addAll(jump.checkArgs());
            HostTools.inNamespace(dir, namespace, null, check).assertSucceeded();
          }
        });
  }

  @Test
  void anIpv6BufferLoadsIntoIp6tables() {
    FamilySettings config = IptablesCases.v6();
    inNamespace(
        namespace -> {
          String buffer =
              IptablesRenderer.renderWithJumps(
                      config, List.of(IptablesCases.v6Service(), IptablesCases.v6NoEndpoints()))
                  .filterAndNat();
          restore(namespace, config, buffer, "--noflush");
          assertThat(save(namespace, config))
              .contains("--reject-with icmp6-port-unreachable")
              .contains("--to-destination [fd00:10::5]:8080");
          assertThat(config.family()).isEqualTo(IpFamily.IPV6);
        });
  }

  private static String command(FamilySettings config) {
    return config.family() == IpFamily.IPV6 ? "ip6tables" : "iptables";
  }

  private void restore(String namespace, FamilySettings config, String buffer, String mode) {
    HostTools.Result result =
        HostTools.inNamespace(
            dir, namespace, buffer, List.of(command(config) + "-restore", "-w", mode));
    if (result.exitCode() != 0) {
      System.err.println(result.stderr());
    }
    result.assertSucceeded();
  }

  private String save(String namespace, FamilySettings config) {
    String command = config.family() == IpFamily.IPV6 ? "ip6tables-save" : "iptables-save";
    return HostTools.inNamespace(dir, namespace, null, List.of(command)).assertSucceeded().stdout();
  }

  private interface InNamespace {
    void run(String namespace);
  }

  /** Runs {@code body} in a fresh network namespace, deleted afterwards whatever happens. */
  private void inNamespace(InNamespace body) {
    String namespace = "proxima-ipt-" + UUID.randomUUID().toString().substring(0, 8);
    HostTools.run(dir, null, List.of("ip", "netns", "add", namespace)).assertSucceeded();
    try {
      body.run(namespace);
    } finally {
      HostTools.run(dir, null, List.of("ip", "netns", "del", namespace));
    }
  }
}
