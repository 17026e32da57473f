package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.proxima.e2e.deploy.Kustomize.Rendered;
import dev.proxima.proxy.testing.HostTools;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The alert rules as Prometheus loads them: the groups of the PrometheusRule that {@code kubectl
 * kustomize deploy/overlays/monitoring} renders, written as a plain rule file, and the Prometheus
 * tools (Debian's {@code prometheus} package) that check them.
 */
final class AlertRules {
  static final String OVERLAY = "deploy/overlays/monitoring";

  /** The promtool unit tests; their {@code rule_files} names {@link #RULE_FILE} beside them. */
  static final String UNIT_TESTS = "deploy/monitoring/alert-tests.yaml";

  static final String RULE_FILE = "proxima-alerts.yaml";

  private static final ObjectMapper YAML = new YAMLMapper();

  /** One alerting rule: its name, expression, labels and annotations. */
  record Alert(
      String name, String expr, Map<String, String> labels, Map<String, String> annotations) {}

  private AlertRules() {}

  /**
   * The rendered PrometheusRule's {@code spec}, which holds {@code groups:} as a rule file does.
   */
  static JsonNode ruleFile(Rendered rendered) {
    var rules =
        rendered.objects().stream()
            .filter(o -> "PrometheusRule".equals(o.getKind()))
            .map(GenericKubernetesResource.class::cast)
            .toList();
    if (rules.size() != 1) {
      throw new AssertionError(OVERLAY + " renders " + rules.size() + " PrometheusRules, not one");
    }
    var spec = YAML.valueToTree(rules.get(0).getAdditionalProperties().get("spec"));
    return YAML.createObjectNode().set("groups", spec.path("groups"));
  }

  /** Writes the rule file as {@code dir/proxima-alerts.yaml}. */
  static Path write(JsonNode ruleFile, Path dir) {
    try {
      var file = dir.resolve(RULE_FILE);
      YAML.writeValue(file.toFile(), ruleFile);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Alert> alerts(JsonNode ruleFile) {
    var alerts = new ArrayList<Alert>();
    for (var group : ruleFile.path("groups")) {
      for (var rule : group.path("rules")) {
        if (rule.hasNonNull("alert")) {
          alerts.add(
              new Alert(
                  rule.path("alert").asText(),
                  rule.path("expr").asText(),
                  strings(rule.path("labels")),
                  strings(rule.path("annotations"))));
        }
      }
    }
    return alerts;
  }

  static JsonNode unitTests(Path repository) {
    try {
      return YAML.readTree(repository.resolve(UNIT_TESTS).toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> strings(JsonNode object) {
    var map = new java.util.TreeMap<String, String>();
    object.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
    return map;
  }

  /**
   * A tool of Debian's {@code prometheus} package. Missing, the test is skipped with the reason; as
   * root it fails instead, since ./test.sh installs the package for root and CI runs as root.
   */
  static Path prometheusTool(String name, String whatIsNotChecked) {
    var tool = HostTools.onPath(name);
    if (tool.isPresent()) {
      return tool.get();
    }
    var reason =
        name
            + " is not on PATH, so "
            + whatIsNotChecked
            + " NOT checked; install it with apt-get install prometheus (./test.sh does as root)";
    if (HostTools.isRoot()) {
      fail(
          reason + ". Running as root, where ./test.sh installs it, a missing " + name + " fails.");
    }
    assumeTrue(false, reason);
    throw new IllegalStateException("unreachable");
  }

  /** Text of a file, for assertion messages. */
  static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
