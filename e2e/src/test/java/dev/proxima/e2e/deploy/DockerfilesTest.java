package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the two Dockerfiles and build.sh must agree on, checked as text on any machine (the
 * container suite, ManifestsContainerIT, builds and runs them where podman is).
 */
class DockerfilesTest {
  private static final Path IMAGES = Kustomize.repositoryRoot().resolve("deploy/images");
  private static final Pattern BASE_DEFAULT = Pattern.compile("(?m)^ARG BASE_IMAGE=(\\S+)$");
  private static final Pattern PUBLIC_BASE = Pattern.compile("(?m)^public_base=\"([^\"]+)\"$");
  private static final Pattern COPY_FROM_CONTEXT =
      Pattern.compile("(?m)^COPY (?!--from)(\\S+) \\S+$");

  @Test
  void bothImagesBuildTheirJavaRuntimeWithTheSameJreStageWordForWord() {
    assertThat(jreStage("controller"))
        .as(
            "the jre stage (base, JDK version, modules, jlink): identical text, so one build reuses"
                + " the other's layers and both images carry the same runtime")
        .isEqualTo(jreStage("proxy"));
  }

  @Test
  void theDefaultBaseIsOnePublicFullyQualifiedImagePinnedByDigestEverywhere() {
    var controller = match(BASE_DEFAULT, read("controller/Dockerfile"));
    var proxy = match(BASE_DEFAULT, read("proxy/Dockerfile"));
    var buildScript = match(PUBLIC_BASE, read("build.sh"));
    assertThat(List.of(controller, proxy)).containsOnly(buildScript);
    assertThat(buildScript).matches("docker\\.io/library/debian:bookworm-slim@sha256:[0-9a-f]{64}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"controller", "proxy"})
  void theDockerignoreLetsThroughExactlyWhatTheDockerfileCopiesFromTheContext(String image) {
    var copied = new ArrayList<String>();
    var matcher = COPY_FROM_CONTEXT.matcher(read(image + "/Dockerfile"));
    while (matcher.find()) {
      copied.add(matcher.group(1));
    }
    var allowed =
        read(image + "/Dockerfile.dockerignore")
            .lines()
            .filter(line -> line.startsWith("!"))
            .map(line -> line.substring(1))
            .toList();
    assertThat(copied).isNotEmpty().containsExactlyInAnyOrderElementsOf(allowed);
  }

  private static String jreStage(String image) {
    var text = read(image + "/Dockerfile");
    int start = text.indexOf("ARG BASE_IMAGE=");
    int end = text.indexOf("# --- the image's files");
    assertThat(start).as("%s's Dockerfile has ARG BASE_IMAGE", image).isNotNegative();
    assertThat(end)
        .as("%s's Dockerfile has a stage after the jre stage", image)
        .isGreaterThan(start);
    return text.substring(start, end);
  }

  private static String match(Pattern pattern, String text) {
    var matcher = pattern.matcher(text);
    assertThat(matcher.find()).as("%s in the file", pattern).isTrue();
    return matcher.group(1);
  }

  private static String read(String file) {
    try {
      return Files.readString(IMAGES.resolve(file));
    } catch (IOException e) {
      throw new AssertionError("cannot read deploy/images/" + file, e);
    }
  }
}
