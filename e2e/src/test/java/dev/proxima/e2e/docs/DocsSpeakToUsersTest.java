package dev.proxima.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps what users and maintainers read free of things only the project's own history explains:
 * internal run codes of measurement sessions ("run OB", "runs NA–NE") and internal issue numbers
 * ("issue 18", "#18"), in the docs, every README, the scripts' usage text, the deploy manifests and
 * image builds, and the main sources (comments and {@code --help} texts alike). Upstream references
 * stay allowed: they carry their repository ({@code kubernetes#139513}, a GitHub link) or a number
 * no internal issue reaches. Also keeps every docs line readable: none over 1,000 characters.
 */
class DocsSpeakToUsersTest {
  private static final Path ROOT = Path.of("..");
  private static final int MAX_LINE = 1_000;

  /** What a reader cannot interpret, each with what it is. */
  private static final List<Pattern> INTERNAL =
      List.of(
          // "run OB", "runs HA and HB", "run FX44", "run TU5"; not "run as", "runs CI".
          Pattern.compile(
              "\\b[Rr]uns? (?!(?:CI|IT|OK)\\b)(?:[A-Z]{1,2}\\d{0,2}|[A-Z]{2,4}\\d{1,2})\\b"),
          // A range of run codes: "NA–NE", "LA-LD".
          Pattern.compile("\\b[A-Z]{2}\\d?[–-][A-Z]{2}\\d?\\b"),
          // "issue 18", "Issue 17's", "issues 8, 17": internal issues have small numbers.
          Pattern.compile("\\b[Ii]ssues? #?\\d{1,3}\\b"),
          // "#18" alone; not an anchor "(#18-...)", a colour "#1f77b4", "kubernetes#139513",
          // "&#8212;".
          Pattern.compile("(?<![\\w/&(])#\\d{1,3}(?![\\w-])"));

  @Test
  void noDocReadmeScriptOrMainSourceCarriesARunCodeOrAnInternalIssueNumber() throws IOException {
    var found = new ArrayList<String>();
    for (var file : readerFacingFiles()) {
      var lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        for (var pattern : INTERNAL) {
          var m = pattern.matcher(lines.get(i));
          while (m.find()) {
            found.add(ROOT.relativize(file) + ":" + (i + 1) + ": \"" + m.group() + "\"");
          }
        }
      }
    }
    assertThat(found)
        .as(
            "run codes and internal issue numbers mean nothing to a reader: say what was"
                + " measured or decided instead")
        .isEmpty();
  }

  @Test
  void noDocsLineIsLongerThanAThousandCharacters() throws IOException {
    var found = new ArrayList<String>();
    for (var file : markdown()) {
      var lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).length() > MAX_LINE) {
          found.add(ROOT.relativize(file) + ":" + (i + 1) + " (" + lines.get(i).length() + ")");
        }
      }
    }
    assertThat(found).as("docs lines over %d characters", MAX_LINE).isEmpty();
  }

  @Test
  void thePatternsFlagInternalReferencesAndLeaveUpstreamOnesAlone() {
    assertThat(
            List.of(
                "measured in run OB",
                "runs NA–NE the evening before",
                "runs HA and HB",
                "see LA-LD",
                "run FX44",
                "issue 18's extreme shapes",
                "Issue 17 set the bar",
                "fixed in #18"))
        .allMatch(DocsSpeakToUsersTest::flagged);
    assertThat(
            List.of(
                "KEP-4444 describes it",
                "kubernetes#139513",
                "https://github.com/kubernetes/kubernetes/issues/139513",
                "issue #96018 upstream",
                "kubernetes issue 123401",
                "v1.36.1 and 1.18.1",
                "the proxy runs on the node",
                "run as root",
                "CI runs it",
                "[the table](#18-extreme-shapes)",
                "fill=\"#1f77b4\"",
                "RFC 3339 in UTC",
                "UTF-8"))
        .noneMatch(DocsSpeakToUsersTest::flagged);
  }

  private static boolean flagged(String text) {
    return INTERNAL.stream().anyMatch(p -> p.matcher(text).find());
  }

  /** The docs, every README, the top-level scripts and every module's main sources. */
  private static List<Path> readerFacingFiles() throws IOException {
    var files = new ArrayList<>(markdown());
    try (Stream<Path> top = Files.list(ROOT)) {
      top.filter(p -> p.toString().endsWith(".sh")).forEach(files::add);
    }
    try (Stream<Path> all = Files.walk(ROOT)) {
      all.filter(Files::isRegularFile)
          .filter(p -> !excluded(p))
          .filter(p -> p.toString().replace('\\', '/').contains("/src/main/"))
          .filter(p -> p.toString().endsWith(".java"))
          .forEach(files::add);
    }
    // The manifests, image builds and CI script: their comments are what operators read first.
    try (Stream<Path> deploy = Files.walk(ROOT.resolve("deploy"))) {
      deploy
          .filter(Files::isRegularFile)
          .filter(
              p -> {
                var name = p.getFileName().toString();
                return name.endsWith(".yaml") || name.endsWith(".sh") || name.equals("Dockerfile");
              })
          .forEach(files::add);
    }
    files.add(ROOT.resolve(".ci/run"));
    assertThat(files).as("files to check").hasSizeGreaterThan(100);
    return files;
  }

  private static List<Path> markdown() throws IOException {
    try (Stream<Path> all = Files.walk(ROOT)) {
      var pages =
          all.filter(Files::isRegularFile)
              .filter(p -> !excluded(p))
              .filter(p -> p.toString().endsWith(".md"))
              .filter(
                  p ->
                      p.getFileName().toString().equals("README.md")
                          || ROOT.relativize(p).startsWith("docs"))
              .toList();
      assertThat(pages).as("docs pages and READMEs").hasSizeGreaterThan(10);
      return pages;
    }
  }

  private static boolean excluded(Path p) {
    var s = p.normalize().toString().replace('\\', '/');
    return s.contains("/target/")
        || s.contains("/.git/")
        || s.contains("/node_modules/")
        || s.contains("/.library/");
  }
}
