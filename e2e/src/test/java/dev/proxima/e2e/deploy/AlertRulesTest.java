package dev.proxima.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.proxima.e2e.deploy.AlertRules.Alert;
import dev.proxima.e2e.deploy.Kustomize.Rendered;
import dev.proxima.proxy.testing.HostTools;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerts of the monitoring overlay, checked by Prometheus's own tools: the rendered
 * PrometheusRule's groups go into a rule file that {@code promtool check rules} must accept and
 * that passes the unit tests in deploy/monitoring/alert-tests.yaml, which must raise every alert at
 * least once and hold one healthy cluster that raises none. Without kubectl every test is skipped;
 * without promtool those that run it are skipped, or fail as root (see {@link
 * AlertRules#prometheusTool}).
 */
class AlertRulesTest {
  /** The test group every alert must stay quiet in. */
  private static final String HEALTHY = "a healthy cluster raises no alert";

  private static final Set<String> SEVERITIES = Set.of("critical", "warning");
  private static final Pattern JOB = Pattern.compile("\\bjob\\s*=\\s*\"([^\"]*)\"");

  private static Path kubectl;
  private static Path repository;
  private static Rendered rendered;

  @TempDir Path work;

  @BeforeAll
  static void findKubectl() {
    kubectl = Kustomize.kubectl().orElse(null);
    repository = Kustomize.repositoryRoot();
  }

  @BeforeEach
  void needsKubectl() {
    assumeTrue(
        kubectl != null,
        "kubectl is not on PATH, so the PrometheusRule in "
            + AlertRules.OVERLAY
            + " cannot be rendered and the alerts are NOT checked; install kubectl");
    if (rendered == null) {
      rendered = Kustomize.render(kubectl, repository, AlertRules.OVERLAY);
    }
  }

  private static JsonNode ruleFile() {
    return AlertRules.ruleFile(rendered);
  }

  @Test
  void promtoolAcceptsTheRenderedRules() {
    var promtool = AlertRules.prometheusTool("promtool", "the alert rules are");
    var rules = AlertRules.write(ruleFile(), work);

    var result = HostTools.run(work, promtool.toString(), "check", "rules", rules.toString());

    result.assertSucceeded();
    assertThat(result.stdout())
        .contains("SUCCESS: " + AlertRules.alerts(ruleFile()).size() + " rules found");
  }

  @Test
  void everyAlertPassesItsPromtoolUnitTests() throws IOException {
    var promtool = AlertRules.prometheusTool("promtool", "the alerts' unit tests are");
    AlertRules.write(ruleFile(), work);
    var tests = work.resolve("alert-tests.yaml");
    Files.copy(repository.resolve(AlertRules.UNIT_TESTS), tests);

    var result = HostTools.run(work, promtool.toString(), "test", "rules", tests.toString());

    result.assertSucceeded();
    assertThat(result.stdout()).contains("SUCCESS");
  }

  /**
   * A unit test file only proves what it asks: each alert must be expected to fire somewhere, and
   * be asked about (and expected quiet) in the healthy cluster.
   */
  @Test
  void everyAlertIsRaisedByOneUnitTestAndStaysQuietInTheHealthyCluster() {
    var names = new TreeSet<String>();
    AlertRules.alerts(ruleFile()).forEach(alert -> names.add(alert.name()));
    var unitTests = AlertRules.unitTests(repository);
    assertThat(unitTests.path("rule_files").get(0).asText()).isEqualTo(AlertRules.RULE_FILE);

    var raised = new TreeSet<String>();
    var quietWhenHealthy = new TreeSet<String>();
    var asked = new TreeSet<String>();
    var healthyGroups = 0;
    for (var group : unitTests.path("tests")) {
      boolean healthy = HEALTHY.equals(group.path("name").asText());
      healthyGroups += healthy ? 1 : 0;
      for (var test : group.path("alert_rule_test")) {
        var name = test.path("alertname").asText();
        asked.add(name);
        var expected = test.path("exp_alerts");
        if (!expected.isMissingNode() && !expected.isEmpty()) {
          assertThat(healthy).as("the healthy cluster expects %s to fire", name).isFalse();
          raised.add(name);
        } else if (healthy) {
          quietWhenHealthy.add(name);
        }
      }
    }

    assertThat(healthyGroups).as("test groups named '%s'", HEALTHY).isEqualTo(1);
    assertThat(asked).as("alerts the unit tests ask about").isSubsetOf(names);
    assertThat(raised).as("alerts some unit test expects to fire").isEqualTo(names);
    assertThat(quietWhenHealthy).as("alerts the healthy cluster checks are quiet").isEqualTo(names);
  }

  @Test
  void everyAlertHasASeverityASummaryAndADescription() {
    var alerts = AlertRules.alerts(ruleFile());

    assertThat(alerts).hasSizeGreaterThanOrEqualTo(10);
    assertThat(alerts)
        .allSatisfy(
            alert -> {
              assertThat(alert.name()).startsWith("Proxima");
              assertThat(alert.labels().get("severity")).as(alert.name()).isIn(SEVERITIES);
              assertThat(alert.annotations())
                  .as(alert.name())
                  .containsOnlyKeys("summary", "description");
            });
    assertThat(alerts).extracting(Alert::name).doesNotHaveDuplicates();
  }

  /** The {@code up} alerts name the jobs the overlay's PodMonitors produce, and no others. */
  @Test
  void theJobsTheAlertsNameAreTheJobsThePodMonitorsScrape() {
    var jobs = new TreeSet<String>();
    for (var alert : AlertRules.alerts(ruleFile())) {
      var matcher = JOB.matcher(alert.expr());
      while (matcher.find()) {
        jobs.add(matcher.group(1));
      }
    }
    var podMonitorJobs = new ArrayList<String>();
    for (var monitor : rendered.objects()) {
      if ("PodMonitor".equals(monitor.getKind())) {
        var spec =
            (Map<?, ?>) ((GenericKubernetesResource) monitor).getAdditionalProperties().get("spec");
        assertThat(spec.get("jobLabel"))
            .as("%s's jobLabel", monitor.getMetadata().getName())
            .isEqualTo("app.kubernetes.io/name");
        var labels = (Map<?, ?>) ((Map<?, ?>) spec.get("selector")).get("matchLabels");
        podMonitorJobs.add(String.valueOf(labels.get("app.kubernetes.io/name")));
      }
    }

    assertThat(jobs).isEqualTo(new TreeSet<>(List.of("proxima-controller", "proxima-proxy")));
    assertThat(podMonitorJobs).containsExactlyInAnyOrderElementsOf(jobs);
  }
}
