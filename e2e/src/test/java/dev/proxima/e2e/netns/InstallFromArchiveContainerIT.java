package dev.proxima.e2e.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.e2e.deploy.Kustomize;
import dev.proxima.proxy.testing.HostTools;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's install steps for nodes without a registry, against images podman builds here:
 * {@code deploy/images/build.sh --archive=DIR} (step 1, with an archive instead of a push), an
 * overlay copied from deploy/overlays/replace-kube-proxy with the {@code images:} block build.sh
 * prints and an API server address (steps 2 and 3), and {@code kubectl kustomize} of it (step 4's
 * check). Every image the rendered manifests name must be one the archives carry, under the name a
 * node's container runtime gives that reference, and the archives must load back as the images
 * built. Nothing is pushed and no cluster is involved: that a node pulls or imports them is not
 * checked here.
 */
class InstallFromArchiveContainerIT {
  private static final Pattern LOADED = Pattern.compile("(?m)^Loaded image(?:\\(s\\))?: (\\S+)$");
  private static final Pattern REPO_TAGS = Pattern.compile("\"RepoTags\":\\[([^\\]]*)\\]");
  private static final Pattern TARGET = Pattern.compile("the target is (\\d+) MB for each");
  private static Path repository;
  private static Path work;
  private static Path kubectl;
  private static String version;

  @BeforeAll
  static void machine() throws IOException {
    var missing = new ArrayList<String>();
    if (!HostTools.isRoot()) {
      missing.add("root (build.sh makes the Debian base with debootstrap)");
    }
    for (var tool : List.of("podman", "kubectl", "debootstrap", "tar")) {
      if (HostTools.onPath(tool).isEmpty() && !Files.isExecutable(Path.of("/usr/sbin", tool))) {
        missing.add(tool);
      }
    }
    if (HostRequirements.required()) {
      assertThat(missing).as("what the install test needs").isEmpty();
    }
    assumeTrue(missing.isEmpty(), () -> "cannot build images here; missing: " + missing);
    repository = Kustomize.repositoryRoot();
    version = ContainerComponents.projectVersion(repository);
    work = Files.createDirectories(repository.resolve("e2e/target/install-from-archive"));
    kubectl = Kustomize.kubectl().orElseThrow();
  }

  @Test
  void theManifestsOfAnOverlayMadeAsTheReadmeSaysNameExactlyTheImagesTheArchivesCarry()
      throws Exception {
    var archives = work.resolve("archives");
    var build = buildSh("--archive=" + archives);

    var overlay = overlayFromReadme(imagesBlock(build), "192.0.2.10");
    var rendered = Kustomize.render(kubectl, repository, repository.relativize(overlay).toString());
    var cleanup = Kustomize.render(kubectl, repository, "deploy/cleanup");
    var named = new TreeSet<String>();
    named.addAll(images(rendered.one(DaemonSet.class, "proxima-proxy").getSpec().getTemplate()));
    named.addAll(
        images(rendered.one(Deployment.class, "proxima-controller").getSpec().getTemplate()));
    named.addAll(images(cleanup.one(DaemonSet.class, "proxima-cleanup").getSpec().getTemplate()));
    assertThat(named)
        .as("the images the rendered install and cleanup name")
        .containsExactlyInAnyOrder("proxima/controller:" + version, "proxima/proxy:" + version);

    var carried = new TreeSet<String>();
    for (var component : List.of("controller", "proxy")) {
      var archive = archives.resolve("proxima-" + component + "-" + version + ".tar");
      assertThat(archive).as("build.sh's archive of proxima/%s", component).isRegularFile();
      carried.addAll(repoTags(archive));

      var loaded = run("podman", "load", "-i", archive.toString());
      var matcher = LOADED.matcher(loaded.stdout());
      assertThat(matcher.find()).as("podman load says what it loaded: %s", loaded).isTrue();
      assertThat(imageId(matcher.group(1)))
          .as("the archive loads back as the image build.sh built")
          .isEqualTo(imageId("localhost/proxima/" + component + ":" + version));
    }
    assertThat(carried)
        .as("the names the archives carry: what a node's runtime calls each manifest's image")
        .containsExactlyInAnyOrderElementsOf(
            named.stream().map(InstallFromArchiveContainerIT::asANodeNamesIt).toList());
    // configMapGenerator adds a hash to the name.
    assertThat(rendered.all(io.fabric8.kubernetes.api.model.ConfigMap.class))
        .filteredOn(map -> map.getMetadata().getName().startsWith("proxima-proxy"))
        .as("the overlay's API server address")
        .singleElement()
        .satisfies(map -> assertThat(map.getData()).containsEntry("api-server-host", "192.0.2.10"));
  }

  @Test
  void withARegistryTheArchivesAndThePrintedImagesBlockCarryTheRegistrysNames() throws Exception {
    var archives = work.resolve("archives-registry");
    var build = buildSh("--archive=" + archives, "registry.example.com/platform");

    var overlay = overlayFromReadme(imagesBlock(build), "192.0.2.10");
    var rendered = Kustomize.render(kubectl, repository, repository.relativize(overlay).toString());
    var named = new TreeSet<String>();
    named.addAll(images(rendered.one(DaemonSet.class, "proxima-proxy").getSpec().getTemplate()));
    named.addAll(
        images(rendered.one(Deployment.class, "proxima-controller").getSpec().getTemplate()));
    assertThat(named)
        .containsExactlyInAnyOrder(
            "registry.example.com/platform/proxima/controller:" + version,
            "registry.example.com/platform/proxima/proxy:" + version);
    var carried = new TreeSet<String>();
    for (var component : List.of("controller", "proxy")) {
      carried.addAll(repoTags(archives.resolve("proxima-" + component + "-" + version + ".tar")));
    }
    assertThat(carried).containsExactlyInAnyOrderElementsOf(named);
  }

  @Test
  void eachImageIsWithinTheSizeDeployReadmeStates() throws Exception {
    buildSh("--archive=" + work.resolve("archives"));
    var readme = Files.readString(repository.resolve("deploy/README.md"));
    var target = TARGET.matcher(readme.replaceAll("\\s+", " "));
    assertThat(target.find()).as("deploy/README.md states the images' size target").isTrue();
    long limit = Long.parseLong(target.group(1)) * 1_000_000L;
    for (var component : List.of("controller", "proxy")) {
      var size =
          run(
                  "podman",
                  "image",
                  "inspect",
                  "--format={{.Size}}",
                  "localhost/proxima/" + component + ":" + version)
              .stdout()
              .strip();
      assertThat(Long.parseLong(size))
          .as("proxima/%s's size as podman images shows it, in bytes", component)
          .isLessThanOrEqualTo(limit);
    }
  }

  /** docker.io/ before a reference without a registry, as containerd and Docker resolve it. */
  static String asANodeNamesIt(String reference) {
    var first = reference.substring(0, Math.max(0, reference.indexOf('/')));
    boolean hasRegistry = first.contains(".") || first.contains(":") || first.equals("localhost");
    return hasRegistry ? reference : "docker.io/" + reference;
  }

  private static List<String> images(io.fabric8.kubernetes.api.model.PodTemplateSpec template) {
    PodSpec spec = template.getSpec();
    return Stream.concat(spec.getContainers().stream(), spec.getInitContainers().stream())
        .map(Container::getImage)
        .toList();
  }

  /** build.sh with the jars the reactor built, as the container suite runs it. */
  private static HostTools.Result buildSh(String... args) throws Exception {
    var command = new ArrayList<String>();
    command.add(repository.resolve("deploy/images/build.sh").toString());
    command.addAll(List.of(args));
    var log = work.resolve("build-" + args.length + ".log");
    var builder =
        new ProcessBuilder(command)
            .directory(repository.toFile())
            .redirectOutput(log.toFile())
            .redirectError(work.resolve("build-" + args.length + ".err").toFile());
    builder.environment().putAll(Map.of("SKIP_JARS", "1", "CONTAINER_ENGINE", "podman"));
    var process = builder.start();
    if (!process.waitFor(20, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("build.sh did not finish in 20 minutes; see " + log);
    }
    var stderr = Files.readString(work.resolve("build-" + args.length + ".err"));
    assertThat(process.exitValue()).as("build.sh %s exit status:%n%s", args, stderr).isZero();
    return new HostTools.Result(command, 0, Files.readString(log), stderr);
  }

  /** The {@code images:} block build.sh printed, as the README says to paste it. */
  private static String imagesBlock(HostTools.Result build) {
    var text = build.stderr();
    int start = text.indexOf("\nimages:\n");
    assertThat(start).as("build.sh prints an images: block:%n%s", text).isNotNegative();
    var block = new StringBuilder("images:\n");
    for (var line : text.substring(start + "\nimages:\n".length()).lines().toList()) {
      if (!line.startsWith("  ")) {
        break;
      }
      block.append(line).append('\n');
    }
    return block.toString();
  }

  /**
   * Steps 2 and 3: a copy of replace-kube-proxy with the printed images block in place of its own
   * and the API server address set. The copy sits under e2e/target, not deploy/overlays, so its
   * path to the base is rewritten; nothing else is.
   */
  private static Path overlayFromReadme(String imagesBlock, String apiServerHost)
      throws IOException {
    var overlay = Files.createDirectories(work.resolve("overlays/my-cluster"));
    var original =
        Files.readString(
            repository.resolve("deploy/overlays/replace-kube-proxy/kustomization.yaml"));
    int images = original.indexOf("\nimages:\n");
    assertThat(images).as("replace-kube-proxy has one images: block").isNotNegative();
    var text =
        original.substring(0, images + 1)
            + imagesBlock
            + original
                .substring(images + "\nimages:\n".length())
                .lines()
                .dropWhile(line -> line.startsWith("  "))
                .map(line -> line + "\n")
                .reduce("", String::concat);
    assertThat(text).contains("set-api-server-host.invalid").contains("  - ../../base\n");
    text =
        text.replace("set-api-server-host.invalid", apiServerHost)
            .replace(
                "  - ../../base\n",
                "  - " + overlay.relativize(repository.resolve("deploy/base")) + "\n");
    Files.writeString(overlay.resolve("kustomization.yaml"), text);
    return overlay;
  }

  /** The names a docker-archive tarball gives its image, from its manifest.json. */
  private static List<String> repoTags(Path archive) {
    var manifest = run("tar", "-xOf", archive.toString(), "manifest.json").stdout();
    var matcher = REPO_TAGS.matcher(manifest.replace(" ", ""));
    var tags = new ArrayList<String>();
    while (matcher.find()) {
      for (var tag : matcher.group(1).split(",")) {
        if (!tag.isBlank()) {
          tags.add(tag.replace("\"", ""));
        }
      }
    }
    return tags;
  }

  private static String imageId(String image) {
    return run("podman", "image", "inspect", "--format={{.Id}}", image).stdout().strip();
  }

  private static HostTools.Result run(String... command) {
    var result = HostTools.run(work, command);
    assertThat(result.exitCode()).as("%s", result).isZero();
    return result;
  }
}
