package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProxyMainTest {
  @Test
  void aStartOfRunBuildsOnlyThatCommandWithTheSameUsageAsInTheWholeTree() {
    var forRun = ProxyMain.commandLineFor(new String[] {"run", "--dry-run"});
    var whole = ProxyMain.commandLine();

    assertThat(forRun.getSubcommands()).containsOnlyKeys("run");
    assertThat(forRun.getSubcommands().get("run").getUsageMessage())
        .isEqualTo(whole.getSubcommands().get("run").getUsageMessage());
    assertThat(forRun.getSubcommands().get("run").isCaseInsensitiveEnumValuesAllowed()).isTrue();
  }

  @Test
  void everyOtherInvocationGetsEveryCommandInHelpOrder() {
    assertThat(ProxyMain.commandLineFor(new String[] {"--help"}).getSubcommands().keySet())
        .containsExactly("run", "explain", "status", "render", "cleanup");
    assertThat(ProxyMain.commandLineFor(new String[0]).getSubcommands()).hasSize(5);
  }

  @Test
  void anOlderDaemonSetsStateDirIsStillAcceptedButNoLongerOffered() {
    var line = ProxyMain.commandLine();

    var parsed = line.parseArgs("run", "--dry-run", "--state-dir=/var/lib/proxima");

    assertThat(parsed.subcommand().matchedOptionValue("--state-dir", ""))
        .isEqualTo("/var/lib/proxima");
    assertThat(line.getSubcommands().get("run").getUsageMessage()).doesNotContain("state-dir");
  }
}
