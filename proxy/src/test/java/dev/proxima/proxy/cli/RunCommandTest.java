package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RunCommandTest {
  @Test
  void theManifestsPlaceholderIsRefusedWithTheConfigMapKeyToSet() {
    assertThat(RunCommand.placeholderError("https://set-api-server-host.invalid:6443"))
        .contains("placeholder set-api-server-host.invalid")
        .contains("api-server-host")
        .contains("proxima-proxy ConfigMap");
  }

  @Test
  void aRealAddressIsAccepted() {
    assertThat(RunCommand.placeholderError("https://10.0.0.1:6443")).isNull();
    assertThat(RunCommand.placeholderError(null)).isNull();
  }
}
