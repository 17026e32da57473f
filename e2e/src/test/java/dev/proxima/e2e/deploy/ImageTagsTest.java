package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The image names and tag agree everywhere an operator meets them: what build.sh builds (and
 * pushes), what the manifests run, and what the install docs and the kind recipe say.
 */
class ImageTagsTest {
  private static final Path ROOT = Kustomize.repositoryRoot();
  private static final Pattern IMAGE_REF =
      Pattern.compile("proxima/(controller|proxy):([0-9][0-9A-Za-z.+-]*)");
  private static final Pattern NEW_TAG = Pattern.compile("(?m)^\\s+newTag:\\s*(\\S+)\\s*$");

  private static List<String> buildScript(String... arguments) throws Exception {
    var command = new ArrayList<>(List.of("bash", "deploy/images/build.sh", "--print-images"));
    command.addAll(List.of(arguments));
    var process =
        new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
    var output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().toList();
  }

  private static String tagOfBuildScript() throws Exception {
    var images = buildScript();
    assertThat(images).hasSize(2);
    return images.get(0).substring(images.get(0).lastIndexOf(':') + 1);
  }

  @Test
  void buildShBuildsTheNamesTheManifestsRunAndPushesThemUnderTheRegistryGiven() throws Exception {
    var tag = tagOfBuildScript();

    assertThat(buildScript()).containsExactly("proxima/controller:" + tag, "proxima/proxy:" + tag);
    assertThat(buildScript("registry.example.com/platform/"))
        .containsExactly(
            "registry.example.com/platform/proxima/controller:" + tag,
            "registry.example.com/platform/proxima/proxy:" + tag);
    assertThat(tag).as("a release tag, not a development one").doesNotEndWith("-SNAPSHOT");
  }

  @Test
  void everyManifestAndKustomizationNamesBuildShsTag() throws Exception {
    var tag = tagOfBuildScript();
    var files =
        List.of(
            "deploy/base/kustomization.yaml",
            "deploy/base/proxy-daemonset.yaml",
            "deploy/base/controller-deployment.yaml",
            "deploy/overlays/replace-kube-proxy/kustomization.yaml",
            "deploy/cleanup/kustomization.yaml",
            "deploy/cleanup/cleanup-daemonset.yaml");
    for (var file : files) {
      var text = Files.readString(ROOT.resolve(file));
      var refs = IMAGE_REF.matcher(text);
      while (refs.find()) {
        assertThat(refs.group(2)).as("%s: %s", file, refs.group()).isEqualTo(tag);
      }
      var newTags = NEW_TAG.matcher(text);
      while (newTags.find()) {
        assertThat(newTags.group(1)).as("%s: newTag", file).isEqualTo(tag);
      }
    }
  }

  /**
   * The README's steps on a copy of replace-kube-proxy: its {@code images:} block pointed at what
   * build.sh pushes to a registry, and the API server set. Every workload then runs those images.
   */
  @Test
  void theReadmesStepsGiveManifestsThatRunThePushedImages() throws Exception {
    var kubectl = Kustomize.kubectl();
    org.junit.jupiter.api.Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not installed");
    var pushed = buildScript("localhost:5000");
    var overlay = ROOT.resolve("e2e/target/readme-install/my-cluster");
    Files.createDirectories(overlay);
    var text =
        Files.readString(ROOT.resolve("deploy/overlays/replace-kube-proxy/kustomization.yaml"))
            .replace("../../base", overlay.relativize(ROOT.resolve("deploy/base")).toString())
            .replace("newName: proxima/controller", "newName: " + untagged(pushed.get(0)))
            .replace("newName: proxima/proxy", "newName: " + untagged(pushed.get(1)))
            .replace("set-api-server-host.invalid", "10.0.0.1");
    Files.writeString(overlay.resolve("kustomization.yaml"), text);

    var rendered = Kustomize.render(kubectl.get(), ROOT, overlay.toString());

    var images = new java.util.TreeSet<String>();
    for (var object : rendered.objects()) {
      var yaml = io.fabric8.kubernetes.client.utils.Serialization.asYaml(object);
      var lines = Pattern.compile("(?m)^\\s*image: (\\S+)$").matcher(yaml);
      while (lines.find()) {
        images.add(lines.group(1).replace("\"", "").replace("'", ""));
      }
    }
    assertThat(images).containsExactlyInAnyOrderElementsOf(pushed);
  }

  private static String untagged(String image) {
    return image.substring(0, image.lastIndexOf(':'));
  }

  @Test
  void theInstallDocsTheReadmeAndTheKindRecipeNameTheSameTag() throws Exception {
    var tag = tagOfBuildScript();
    for (var file :
        List.of(
            "README.md",
            "docs/install.md",
            "deploy/README.md",
            "e2e/kind/README.md",
            "e2e/kind/run.sh")) {
      var refs = IMAGE_REF.matcher(Files.readString(ROOT.resolve(file)));
      int found = 0;
      while (refs.find()) {
        found++;
        assertThat(refs.group(2)).as("%s: %s", file, refs.group()).isEqualTo(tag);
      }
      if (!file.equals("deploy/README.md")) {
        assertThat(found).as("%s names the images with their tag", file).isPositive();
      }
    }
  }
}
