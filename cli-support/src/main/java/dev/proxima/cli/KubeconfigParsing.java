package dev.proxima.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Utils;
import java.io.File;
import java.util.List;
import java.util.Objects;

/**
 * A kubeconfig parsed once and turned into fabric8's client configuration, as {@code
 * Config.fromKubeconfig(null, text, path)} does, but without fabric8's shared serialization. That
 * one, made the first time anything parses through it, looks up every API kind fabric8's jars list
 * and loads its class: about 550 classes, 0.1 s of a cold start before the first list request can
 * leave (docs/performance.md, new node). A kubeconfig holds none of those kinds, so a serialization
 * told to know no kind parses it the same; {@code KubeconfigParsingTest} holds the result equal to
 * fabric8's own for every kind of kubeconfig the binaries accept.
 */
final class KubeconfigParsing {
  /**
   * The keys under which fabric8 remembers which file a context, cluster and user came from: it
   * resolves their relative certificate and key paths against that file's directory, as kubectl
   * does, and writes a refreshed token back to it.
   */
  private static final String CONTEXT_FILE = "KUBERNETES_CONFIG_CONTEXT_FILE_KEY";

  private static final String CLUSTER_FILE = "KUBERNETES_CONFIG_CLUSTER_FILE_KEY";
  private static final String USER_FILE = "KUBERNETES_CONFIG_AUTH_INFO_FILE_KEY";

  private KubeconfigParsing() {}

  /**
   * The kubeconfig's model, or null for an empty text.
   *
   * @throws RuntimeException fabric8's parse error, with the line and column where it has one
   */
  static Config model(String text) {
    return new KubernetesSerialization(new ObjectMapper(), false).unmarshal(text, Config.class);
  }

  /**
   * fabric8's client configuration for the model's current context, with the system properties and
   * environment variables fabric8 applies after a kubeconfig (unless told not to).
   *
   * @param file where the model was read from; relative paths in it are relative to its directory
   */
  static io.fabric8.kubernetes.client.Config clientConfig(Config model, File file) {
    orEmpty(model.getContexts()).forEach(c -> c.getAdditionalProperties().put(CONTEXT_FILE, file));
    orEmpty(model.getClusters()).forEach(c -> c.getAdditionalProperties().put(CLUSTER_FILE, file));
    orEmpty(model.getUsers()).forEach(u -> u.getAdditionalProperties().put(USER_FILE, file));
    var config = io.fabric8.kubernetes.client.Config.empty();
    KubeConfigUtils.merge(config, null, model);
    if (!Utils.getSystemPropertyOrEnvVar(
        io.fabric8.kubernetes.client.Config.KUBERNETES_DISABLE_AUTO_CONFIG_SYSTEM_PROPERTY,
        false)) {
      io.fabric8.kubernetes.client.Config.configFromSysPropsOrEnvVars(config);
    }
    return config;
  }

  private static <T> List<T> orEmpty(List<T> items) {
    return Objects.requireNonNullElse(items, List.of());
  }
}
