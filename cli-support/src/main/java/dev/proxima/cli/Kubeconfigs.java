package dev.proxima.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Finds and checks the kubeconfig a binary uses, so that a missing, unreadable, malformed or empty
 * file is one line naming it instead of a stack trace or a silent fall back to in-cluster defaults.
 */
public final class Kubeconfigs {
  private static final Pattern MARK = Pattern.compile("line (\\d+), column (\\d+)");

  private final Map<String, String> environment;
  private final Path home;
  private final Path serviceAccountToken;

  /**
   * @param environment the process environment ({@code KUBECONFIG}, {@code
   *     KUBERNETES_SERVICE_HOST})
   * @param home the user's home directory, for {@code ~/.kube/config}
   * @param serviceAccountToken the token a pod's service account mounts
   */
  public Kubeconfigs(Map<String, String> environment, Path home, Path serviceAccountToken) {
    this.environment = environment;
    this.home = home;
    this.serviceAccountToken = serviceAccountToken;
  }

  /** This process's environment. */
  public static Kubeconfigs ofThisProcess() {
    return new Kubeconfigs(
        System.getenv(),
        Path.of(System.getProperty("user.home", "/")),
        Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"));
  }

  /**
   * The client configuration: the given file if there is one; else in a pod its service account;
   * else {@code $KUBECONFIG}, then {@code ~/.kube/config}. Nothing found is an error, never a guess
   * at an in-cluster address.
   */
  public Config resolve(Path explicit) throws KubeconfigException {
    if (explicit != null) {
      return fromFile(explicit);
    }
    if (inCluster()) {
      return Config.autoConfigure(null);
    }
    var variable = environment.get("KUBECONFIG");
    if (variable != null && !variable.isBlank()) {
      var files =
          List.of(variable.split(java.io.File.pathSeparator)).stream()
              .filter(name -> !name.isBlank())
              .map(Path::of)
              .toList();
      if (files.size() == 1) {
        return fromFile(files.get(0));
      }
      // Several files are merged (by fabric8, as kubectl does): one may hold the contexts and
      // another the current-context, and missing ones are skipped. Each must still parse.
      var existing = files.stream().filter(Files::exists).toList();
      if (existing.isEmpty()) {
        throw new KubeconfigException(
            "none of the kubeconfig files in $KUBECONFIG exists: " + files);
      }
      for (var file : existing) {
        parse(file, read(file));
      }
      return Config.autoConfigure(null);
    }
    var fallback = home.resolve(".kube").resolve("config");
    if (Files.exists(fallback)) {
      return fromFile(fallback);
    }
    throw new KubeconfigException(
        "no kubeconfig: not running in a pod (KUBERNETES_SERVICE_HOST is unset) and none of"
            + " --kubeconfig, $PROXIMA_KUBECONFIG, $KUBECONFIG or "
            + fallback
            + " is given");
  }

  private boolean inCluster() {
    var host = environment.get("KUBERNETES_SERVICE_HOST");
    return host != null && !host.isBlank() && Files.isReadable(serviceAccountToken);
  }

  /** Reads, parses and checks one kubeconfig file, then builds fabric8's configuration from it. */
  public static Config fromFile(Path file) throws KubeconfigException {
    check(file);
    // fabric8 reads the file again: its configuration resolves relative certificate and key paths
    // against the file's directory, as kubectl does, and applies the system properties and
    // environment variables that override a kubeconfig.
    return Config.fromKubeconfig(null, file.toAbsolutePath().toFile());
  }

  private static io.fabric8.kubernetes.api.model.Config check(Path file)
      throws KubeconfigException {
    var text = read(file);
    var parsed = parse(file, text);
    checkServer(file, parsed);
    return parsed;
  }

  private static String read(Path file) throws KubeconfigException {
    try {
      return Files.readString(file);
    } catch (NoSuchFileException missing) {
      throw new KubeconfigException("kubeconfig " + file + " does not exist");
    } catch (AccessDeniedException denied) {
      throw new KubeconfigException("kubeconfig " + file + " cannot be read: permission denied");
    } catch (IOException unreadable) {
      var reason =
          Files.isDirectory(file) ? "it is a directory" : String.valueOf(unreadable.getMessage());
      throw new KubeconfigException("kubeconfig " + file + " cannot be read: " + reason);
    }
  }

  private static io.fabric8.kubernetes.api.model.Config parse(Path file, String text)
      throws KubeconfigException {
    io.fabric8.kubernetes.api.model.Config parsed;
    try {
      parsed =
          new KubernetesSerialization(new ObjectMapper(), false)
              .unmarshal(text, io.fabric8.kubernetes.api.model.Config.class);
    } catch (RuntimeException malformed) {
      throw new KubeconfigException("kubeconfig " + file + " is not valid: " + describe(malformed));
    }
    if (parsed == null) {
      throw new KubeconfigException("kubeconfig " + file + " is empty");
    }
    return parsed;
  }

  /** The current context must exist and name a cluster with a server address. */
  private static void checkServer(Path file, io.fabric8.kubernetes.api.model.Config parsed)
      throws KubeconfigException {
    var contextName = parsed.getCurrentContext();
    var contexts = Objects.requireNonNullElse(parsed.getContexts(), List.<NamedContext>of());
    if (contextName == null || contextName.isBlank()) {
      throw new KubeconfigException(
          "kubeconfig "
              + file
              + " has no current-context"
              + (contexts.isEmpty()
                  ? " and no contexts (is it empty?)"
                  : "; set one with kubectl config use-context"));
    }
    var context =
        contexts.stream()
            .filter(named -> contextName.equals(named.getName()))
            .findFirst()
            .orElseThrow(
                () ->
                    new KubeconfigException(
                        "kubeconfig "
                            + file
                            + ": current-context "
                            + contextName
                            + " is not one of its contexts "
                            + contexts.stream().map(NamedContext::getName).toList()));
    var clusterName = context.getContext() == null ? null : context.getContext().getCluster();
    var cluster =
        Objects.requireNonNullElse(parsed.getClusters(), List.<NamedCluster>of()).stream()
            .filter(named -> Objects.equals(clusterName, named.getName()))
            .findFirst();
    if (cluster.isEmpty()
        || cluster.get().getCluster() == null
        || cluster.get().getCluster().getServer() == null
        || cluster.get().getCluster().getServer().isBlank()) {
      throw new KubeconfigException(
          "kubeconfig "
              + file
              + ": context "
              + contextName
              + " names cluster "
              + clusterName
              + ", which has no server address");
    }
  }

  /** The parser's problem on one line, with where it was found. */
  private static String describe(RuntimeException malformed) {
    var message = String.valueOf(malformed.getMessage());
    var lines =
        message
            .lines()
            .filter(line -> !line.isBlank() && !Character.isWhitespace(line.charAt(0)))
            .toList();
    var problem = lines.isEmpty() ? message : String.join("; ", lines);
    var marks = MARK.matcher(message);
    String where = null;
    while (marks.find()) {
      where = "line " + marks.group(1) + ", column " + marks.group(2);
    }
    if (where == null) {
      // Jackson's "(through reference chain: ...)" and source excerpts say nothing to an operator.
      int detail = problem.indexOf(" at [Source");
      if (detail >= 0) {
        problem = problem.substring(0, detail);
      }
      return "not a kubeconfig (" + problem + ")";
    }
    return "at " + where + ": " + problem;
  }
}
