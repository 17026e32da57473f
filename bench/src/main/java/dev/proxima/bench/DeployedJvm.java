package dev.proxima.bench;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVM flags a component runs with in its pod, read from the manifests in deploy/base so the
 * harness cannot drift from what operators deploy: the container's JAVA_OPTS, plus the container's
 * memory limit as {@code -XX:MaxRAM} and its CPU limit, if any, as {@code
 * -XX:ActiveProcessorCount}, which is how the JVM sees those limits inside the container; and the
 * container's MALLOC_* variables, which shape the C heap the JVM's threads allocate from. Then the
 * flags the image's entrypoint script gives {@code java} itself
 * (deploy/images/<module>/entrypoint).
 */
record DeployedJvm(List<String> flags, Map<String, String> environment) {
  private static final Map<Path, DeployedJvm> READ = new ConcurrentHashMap<>();

  /** For a jar built at {@code <repo>/<module>/target/<name>.jar}. */
  static DeployedJvm forJar(Path jar) {
    var module = jar.toAbsolutePath().getParent().getParent();
    var manifest = manifestOf(jar);
    var entrypoint =
        module
            .getParent()
            .resolve("deploy")
            .resolve("images")
            .resolve(module.getFileName().toString())
            .resolve("entrypoint");
    return READ.computeIfAbsent(
        jar.toAbsolutePath(),
        key -> {
          var deployed = read(manifest);
          var flags = new ArrayList<>(deployed.flags());
          flags.addAll(imageFlags(entrypoint));
          return new DeployedJvm(List.copyOf(flags), deployed.environment());
        });
  }

  /**
   * The manifest's flags and environment for {@code jar}'s component, without the image's
   * ENTRYPOINT flags: for a JVM that runs the harness's own classes with the component's heap and
   * CPU limits.
   */
  static DeployedJvm manifestOnly(Path jar) {
    return read(manifestOf(jar));
  }

  /**
   * BENCH_TRIAL_JVM_FLAGS, which every process the harness starts gets after the manifest's: for
   * trying a flag out before the images get it; the figures then are not the images'.
   */
  static List<String> trialFlags() {
    var trial = System.getenv("BENCH_TRIAL_JVM_FLAGS");
    return trial == null || trial.isBlank() ? List.of() : List.of(trial.trim().split("\\s+"));
  }

  /**
   * The command that runs {@code main} of the harness's own classes in a JVM with these flags and
   * the trial flags, as a pod of the component would run it; the caller adds {@link
   * #environment()}.
   */
  List<String> harnessCommand(String classPath, Class<?> main, List<String> args) {
    var command = new ArrayList<String>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags);
    command.addAll(trialFlags());
    command.addAll(List.of("-cp", classPath, main.getName()));
    command.addAll(args);
    return command;
  }

  /** The workload manifest in deploy/base of the component {@code jar} was built for. */
  private static Path manifestOf(Path jar) {
    var module = jar.toAbsolutePath().getParent().getParent();
    var base = module.getParent().resolve("deploy").resolve("base");
    return module.getFileName().toString().equals("proxy")
        ? base.resolve("proxy-daemonset.yaml")
        : base.resolve("controller-deployment.yaml");
  }

  /**
   * The JVM options the image's entrypoint script gives {@code java} itself: the words of its
   * {@code exec .../java ... -jar ...} command between {@code java} and {@code -jar}, without the
   * container's {@code $JAVA_OPTS} (the manifest's, read apart); none when it has no such command.
   */
  static List<String> imageFlags(Path entrypoint) {
    String script;
    try {
      script = Files.readString(entrypoint);
    } catch (IOException e) {
      throw new HarnessError("cannot read " + entrypoint, e);
    }
    for (var line : script.replace("\\\n", " ").lines().toList()) {
      var words = List.of(line.trim().split("\\s+"));
      if (words.size() < 2 || !words.get(0).equals("exec") || !words.get(1).endsWith("/java")) {
        continue;
      }
      int jar = words.indexOf("-jar");
      if (jar < 0) {
        return List.of();
      }
      return words.subList(2, jar).stream().filter(word -> !word.contains("JAVA_OPTS")).toList();
    }
    return List.of();
  }

  private static DeployedJvm read(Path manifest) {
    String yaml;
    try {
      yaml = Files.readString(manifest);
    } catch (IOException e) {
      throw new HarnessError("cannot read " + manifest, e);
    }
    // A manifest may hold several documents; the workload is the one the flags belong to.
    var workload =
        java.util.Arrays.stream(yaml.split("(?m)^---\\s*$"))
            .filter(document -> document.matches("(?s).*\\bkind: (DaemonSet|Deployment)\\b.*"))
            .findFirst()
            .orElseThrow(() -> new HarnessError("no DaemonSet or Deployment in " + manifest));
    Container container =
        workload.contains("kind: DaemonSet")
            ? Serialization.unmarshal(workload, DaemonSet.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
            : Serialization.unmarshal(workload, Deployment.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0);
    var flags = new ArrayList<String>();
    container.getEnv().stream()
        .filter(env -> env.getName().equals("JAVA_OPTS") && env.getValue() != null)
        .forEach(env -> flags.addAll(List.of(env.getValue().trim().split("\\s+"))));
    var limits =
        container.getResources() == null || container.getResources().getLimits() == null
            ? Map.<String, Quantity>of()
            : container.getResources().getLimits();
    if (limits.containsKey("memory")) {
      flags.add("-XX:MaxRAM=" + limits.get("memory").getNumericalAmount().longValue());
    }
    if (limits.containsKey("cpu")) {
      int cpus = (int) Math.ceil(limits.get("cpu").getNumericalAmount().doubleValue());
      flags.add("-XX:ActiveProcessorCount=" + Math.max(1, cpus));
    }
    var environment = new java.util.TreeMap<String, String>();
    container.getEnv().stream()
        .filter(env -> env.getName().startsWith("MALLOC_") && env.getValue() != null)
        .forEach(env -> environment.put(env.getName(), env.getValue()));
    return new DeployedJvm(List.copyOf(flags), Map.copyOf(environment));
  }
}
