package dev.proxima.e2e.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Renders a kustomization with {@code kubectl kustomize} and parses what comes out. */
public final class Kustomize {
  private Kustomize() {}

  /** kubectl from PATH, if there is one. */
  public static Optional<Path> kubectl() {
    var path = System.getenv().getOrDefault("PATH", "");
    for (var dir : path.split(java.io.File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      var candidate = Path.of(dir, "kubectl");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The repository checkout: the nearest directory above this module that holds deploy/. */
  public static Path repositoryRoot() {
    for (var dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("deploy/kustomization.yaml"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no deploy/kustomization.yaml above " + Path.of("").toAbsolutePath());
  }

  /** What {@code kubectl kustomize DIR} printed: the objects, and stderr (warnings). */
  public record Rendered(String directory, List<HasMetadata> objects, String stderr) {
    public <T extends HasMetadata> List<T> all(Class<T> type) {
      return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public <T extends HasMetadata> T one(Class<T> type, String name) {
      var found = all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).toList();
      if (found.size() != 1) {
        throw new AssertionError(
            directory
                + " renders "
                + found.size()
                + " "
                + type.getSimpleName()
                + " named "
                + name
                + ", expected exactly one");
      }
      return found.get(0);
    }

    /** A ConfigMap by the name it is referenced by (generated ones carry a hash suffix). */
    public Optional<ConfigMap> configMap(String namespace, String name) {
      return all(ConfigMap.class).stream()
          .filter(cm -> name.equals(cm.getMetadata().getName()))
          .filter(cm -> namespace.equals(cm.getMetadata().getNamespace()))
          .findFirst();
    }
  }

  public static Rendered render(Path kubectl, Path repository, String directory) {
    try {
      var stderr = Files.createTempFile("kustomize", ".err");
      try {
        var process =
            new ProcessBuilder(kubectl.toString(), "kustomize", directory)
                .directory(repository.toFile())
                .redirectError(stderr.toFile())
                .start();
        process.getOutputStream().close();
        var out = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError("kubectl kustomize " + directory + " did not finish in 120 s");
        }
        var err = Files.readString(stderr);
        if (process.exitValue() != 0) {
          throw new AssertionError(
              "kubectl kustomize " + directory + " exited " + process.exitValue() + ":\n" + err);
        }
        return new Rendered(directory, parse(out), err);
      } finally {
        Files.deleteIfExists(stderr);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static List<HasMetadata> parse(String yaml) {
    Object parsed = new KubernetesSerialization().unmarshal(yaml);
    var objects = new ArrayList<HasMetadata>();
    if (parsed instanceof List<?> list) {
      for (var item : list) {
        objects.add((HasMetadata) item);
      }
    } else if (parsed != null) {
      objects.add((HasMetadata) parsed);
    }
    return objects;
  }
}
