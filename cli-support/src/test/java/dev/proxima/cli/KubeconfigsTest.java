package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigsTest {
  @TempDir Path home;

  private static final String VALID =
      """
      apiVersion: v1
      kind: Config
      clusters:
      - name: c
        cluster: {server: "https://10.0.0.1:6443"}
      users:
      - name: u
        user: {token: t}
      contexts:
      - name: x
        context: {cluster: c, user: u}
      current-context: x
      """;

  private Kubeconfigs outsideAPod(Map<String, String> environment) {
    return new Kubeconfigs(environment, home, home.resolve("no-token"));
  }

  @Test
  void anExplicitFileIsUsedAsIs() throws Exception {
    var file = Files.writeString(home.resolve("kc"), VALID);

    var config = outsideAPod(Map.of()).resolve(file);

    assertThat(config.getMasterUrl()).startsWith("https://10.0.0.1:6443");
  }

  @Test
  void withoutAFileItReadsKubeconfigThenTheHomeDirectory() throws Exception {
    var file = Files.writeString(home.resolve("kc"), VALID);
    Files.createDirectories(home.resolve(".kube"));
    Files.writeString(
        home.resolve(".kube/config"), VALID.replace("10.0.0.1:6443", "10.0.0.2:6443"));

    assertThat(outsideAPod(Map.of("KUBECONFIG", file.toString())).resolve(null).getMasterUrl())
        .startsWith("https://10.0.0.1:6443");
    assertThat(outsideAPod(Map.of()).resolve(null).getMasterUrl())
        .startsWith("https://10.0.0.2:6443");
  }

  @Test
  void nothingOutsideAPodIsAnErrorRatherThanAGuessedInClusterAddress() throws Exception {
    var token = Files.writeString(home.resolve("token"), "t");

    assertThatThrownBy(() -> outsideAPod(Map.of()).resolve(null))
        .isInstanceOf(KubeconfigException.class)
        .hasMessageStartingWith("no kubeconfig: not running in a pod");
    assertThatThrownBy(() -> new Kubeconfigs(Map.of(), home, token).resolve(null))
        .as("a token without KUBERNETES_SERVICE_HOST is not a pod either")
        .isInstanceOf(KubeconfigException.class);
  }

  @Test
  void aContextNamingNoClusterOrAMissingContextIsNamed() throws Exception {
    var missingContext =
        Files.writeString(
            home.resolve("a"), VALID.replace("current-context: x", "current-context: y"));
    var noServer =
        Files.writeString(home.resolve("b"), VALID.replace("{cluster: c,", "{cluster: d,"));

    assertThatThrownBy(() -> outsideAPod(Map.of()).resolve(missingContext))
        .hasMessage(
            "kubeconfig " + missingContext + ": current-context y is not one of its contexts [x]");
    assertThatThrownBy(() -> outsideAPod(Map.of()).resolve(noServer))
        .hasMessage(
            "kubeconfig " + noServer + ": context x names cluster d, which has no server address");
  }

  @Test
  void aFileOfTheWrongShapeSaysItIsNotAKubeconfig() throws Exception {
    var list = Files.writeString(home.resolve("list"), "- a\n- b\n");

    assertThatThrownBy(() -> outsideAPod(Map.of()).resolve(list))
        .hasMessageStartingWith("kubeconfig " + list + " is not valid: not a kubeconfig (")
        .hasMessageNotContaining("\n");
  }

  @Test
  void severalFilesInKubeconfigMustEachParseAndAtLeastOneExist() throws Exception {
    var garbage = Files.writeString(home.resolve("garbage"), "users: [\n");
    var missing = home.resolve("missing");

    assertThatThrownBy(
            () ->
                outsideAPod(Map.of("KUBECONFIG", missing + ":" + home.resolve("also-missing")))
                    .resolve(null))
        .hasMessageStartingWith("none of the kubeconfig files in $KUBECONFIG exists");
    assertThatThrownBy(
            () -> outsideAPod(Map.of("KUBECONFIG", missing + ":" + garbage)).resolve(null))
        .hasMessageStartingWith("kubeconfig " + garbage + " is not valid: at line 2");
  }
}
