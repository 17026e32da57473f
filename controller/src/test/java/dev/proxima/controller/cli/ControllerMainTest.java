package dev.proxima.controller.cli;

import static dev.proxima.controller.cli.PlanCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.cli.DurationConverter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ControllerMainTest {
  @Test
  void helpListsEverySubcommand() {
    var result = run("--help");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("run").contains("plan").doesNotContain("demo");
  }

  @Test
  void withoutASubcommandItExitsWithUsage() {
    var result = run();

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("a subcommand is required").contains("Usage:");
  }

  @Test
  void runRejectsABadBindAddressBeforeTouchingAnything() {
    var result = run("run", "--metrics-bind-address", "nonsense");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("'nonsense' is not a bind address");
  }

  @Test
  void runHelpNamesTheEnvironmentVariablesAndDefaults() {
    var result = run("run", "--help");

    assertThat(result.out())
        .contains("--leader-elect")
        .contains("--workers")
        .contains("default: 5")
        .contains("--resync-period")
        .contains("--log-format")
        .contains("PROXIMA_");
  }

  @Test
  void optionsFallBackToDefaultsThatMatchUpstream() {
    var command = new RunCommand();
    new CommandLine(command).parseArgs();

    var config = command.controllerConfig();

    assertThat(config.workers()).isEqualTo(5);
    assertThat(config.maxRetries()).isEqualTo(15);
    assertThat(config.resyncPeriod()).isEqualTo(Duration.ofMinutes(30));
    assertThat(config.leaderElection().enabled()).isTrue();
    assertThat(config.leaderElection().namespace()).isEqualTo("proxima-system");
    assertThat(config.leaderElection().identity()).isNotBlank();
  }

  @Test
  void durationsUseKubernetesSpelling() {
    var converter = new DurationConverter();

    assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(converter.convert("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(converter.convert("10m")).isEqualTo(Duration.ofMinutes(10));
    assertThat(converter.convert("1h")).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aBadDurationSaysHowToWriteOne() {
    var result = run("run", "--resync-period", "soon");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("'soon' is not a duration");
  }
}
