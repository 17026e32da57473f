package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kubeconfig path that skips fabric8's class-path scan must build what fabric8's own {@code
 * Config.fromKubeconfig} builds, for every kind of user and cluster a kubeconfig can name.
 */
class KubeconfigParsingTest {
  @TempDir Path directory;

  private static final String CLUSTERS =
      """
      clusters:
      - name: main
        cluster:
          server: https://10.0.0.1:6443
          certificate-authority: pki/ca.crt
          tls-server-name: api.cluster.local
          proxy-url: http://proxy.example:3128
          extensions:
          - name: client.authentication.k8s.io/exec
            extension: {apiVersion: v1, kind: Unknown, audience: main}
      - name: other
        cluster:
          server: https://10.0.0.2:6443
          insecure-skip-tls-verify: true
      """;

  private static final String TOKEN =
      """
      users:
      - name: u
        user: {token: secret-token}
      contexts:
      - name: x
        context: {cluster: main, user: u, namespace: team-a}
      current-context: x
      """;

  private static final String CERTIFICATE_FILES =
      """
      users:
      - name: u
        user: {client-certificate: pki/client.crt, client-key: pki/client.key}
      contexts:
      - name: x
        context: {cluster: main, user: u}
      current-context: x
      """;

  private static final String EXEC_PLUGIN =
      """
      users:
      - name: u
        user:
          exec:
            apiVersion: client.authentication.k8s.io/v1
            command: ./credential.sh
            args: [--cluster, main]
            env: [{name: REGION, value: eu}]
            interactiveMode: Never
      contexts:
      - name: x
        context: {cluster: main, user: u}
      current-context: x
      """;

  static Stream<Arguments> kubeconfigs() {
    return Stream.of(
        Arguments.of("a bearer token", TOKEN),
        Arguments.of(
            "client certificate and key files given relative to the kubeconfig", CERTIFICATE_FILES),
        Arguments.of(
            "a user name and password, on the second of two contexts",
            """
            users:
            - name: basic
              user: {username: admin, password: hunter2}
            - name: u
              user: {token: unused}
            contexts:
            - name: first
              context: {cluster: main, user: u}
            - name: second
              context: {cluster: other, user: basic, namespace: ops}
            current-context: second
            """),
        Arguments.of("an exec credential plugin", EXEC_PLUGIN),
        Arguments.of(
            "an auth provider",
            """
            users:
            - name: u
              user:
                auth-provider:
                  name: oidc
                  config: {id-token: an-id-token, idp-issuer-url: "https://issuer.example"}
            contexts:
            - name: x
              context: {cluster: main, user: u}
            current-context: x
            """));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kubeconfigs")
  void buildsWhatFabric8BuildsFromTheSameFile(String kind, String rest) throws Exception {
    var file = kubeconfig(CLUSTERS + rest);

    var ours = Kubeconfigs.fromFile(file);

    var fabric8s = Config.fromKubeconfig(null, Files.readString(file), file.toString());
    assertThat(ours).isEqualTo(fabric8s);
    assertThat(ours.getMasterUrl())
        .isEqualTo(fabric8s.getMasterUrl())
        .startsWith("https://10.0.0.");
    assertThat(ours.getCurrentContext().getName())
        .isEqualTo(fabric8s.getCurrentContext().getName());
  }

  @Test
  void relativeFilesResolveAgainstTheKubeconfigsDirectoryAsFabric8sDo() throws Exception {
    var file = kubeconfig(CLUSTERS + CERTIFICATE_FILES);

    var config = Kubeconfigs.fromFile(file);

    assertThat(config.getCaCertFile()).isEqualTo(directory.resolve("pki/ca.crt").toString());
    assertThat(config.getClientCertFile())
        .isEqualTo(directory.resolve("pki/client.crt").toString());
    assertThat(config.getClientKeyFile()).isEqualTo(directory.resolve("pki/client.key").toString());
    assertThat(KubeConfigUtils.getFileWithNamedContext(config.getCurrentContext()))
        .isEqualTo(file.toFile());
    assertThat(KubeConfigUtils.getFileWithNamedAuthInfo(config.getCurrentContext()))
        .isEqualTo(file.toFile());
  }

  @Test
  void fabric8sSystemPropertiesApplyOnTopOfTheKubeconfigAsTheyDoInFabric8() throws Exception {
    var file = kubeconfig(CLUSTERS + TOKEN);
    var property = Config.KUBERNETES_REQUEST_TIMEOUT_SYSTEM_PROPERTY;
    var before = System.getProperty(property);
    System.setProperty(property, "12345");
    try {
      var ours = Kubeconfigs.fromFile(file);

      assertThat(ours.getRequestTimeout()).isEqualTo(12345);
      assertThat(ours)
          .isEqualTo(Config.fromKubeconfig(null, Files.readString(file), file.toString()));
    } finally {
      if (before == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, before);
      }
    }
  }

  @Test
  void aTokenFromTheExecPluginIsTheOneFabric8Gets() throws Exception {
    var file = kubeconfig(CLUSTERS + EXEC_PLUGIN);

    assertThat(Kubeconfigs.fromFile(file).getAutoOAuthToken()).isEqualTo("from-the-plugin");
  }

  private Path kubeconfig(String text) throws Exception {
    var pki = Files.createDirectories(directory.resolve("pki"));
    for (var name : new String[] {"ca.crt", "client.crt", "client.key"}) {
      Files.writeString(pki.resolve(name), "not read while the configuration is built");
    }
    var plugin = directory.resolve("credential.sh");
    Files.writeString(
        plugin,
        """
        #!/bin/sh
        echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",\
        "status":{"token":"from-the-plugin"}}'
        """);
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
    return Files.writeString(directory.resolve("config"), "apiVersion: v1\nkind: Config\n" + text);
  }
}
