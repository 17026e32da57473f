package dev.proxima.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.cli.DurationConverter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The run command's option defaults; the command line itself is tested on the jar (*IT). */
class ControllerMainTest {
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
}
