package dev.proxima.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.proxima.controller.cli.ControllerMain;
import dev.proxima.controller.metrics.ControllerMetrics;
import dev.proxima.http.StreamedFamily;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.cli.ProxyMain;
import dev.proxima.proxy.metrics.ConnectionCounts;
import dev.proxima.proxy.metrics.ConnectionLocalityMetrics;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.ProxyMode;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Keeps the operator documentation and the Grafana dashboard true to the code: every metric they
 * name is one the components register, every registered metric is documented, and every flag the
 * pages mention is an option of the command line it belongs to.
 *
 * <p>The metric names come from the code itself: both metric classes are instantiated on fresh
 * registries, exercised once so that every labelled series exists, and scraped in the Prometheus
 * text format, which is what Prometheus stores and what queries must name.
 */
class DashboardAndDocsTest {
  /** The e2e module runs its tests in e2e/; the documentation lives at the repository root. */
  private static final Path ROOT = Path.of("..");

  private static final Path DASHBOARD = ROOT.resolve("deploy/monitoring/grafana-dashboard.json");
  private static final Path METRICS_DOC = ROOT.resolve("docs/metrics.md");
  private static final Path ALERT_RULES =
      ROOT.resolve("deploy/overlays/monitoring/prometheusrule.yaml");

  /** The operator pages that mention flags of both binaries. */
  private static final List<String> OPERATOR_PAGES =
      List.of(
          "docs/architecture.md",
          "docs/install.md",
          "docs/metrics.md",
          "docs/traffic-distribution.md",
          "docs/troubleshooting.md");

  /** Flags of other tools that the operator pages use in their commands, with the tool. */
  private static final Map<String, String> OTHER_TOOLS_FLAGS =
      Map.ofEntries(
          Map.entry("--cleanup", "kube-proxy"),
          Map.entry("--allocate-node-cidrs", "kube-controller-manager"),
          Map.entry("--field-selector", "kubectl"),
          Map.entry("--show-managed-fields", "kubectl"),
          Map.entry("--timeout", "kubectl rollout status"),
          Map.entry("--orig-dst", "conntrack"),
          Map.entry("--reply-src", "conntrack"),
          Map.entry("--noflush", "iptables-restore"),
          // iptables match and target options in the iptables mode's chain layout.
          Map.entry("--dport", "iptables"),
          Map.entry("--dst-type", "iptables"),
          Map.entry("--src-type", "iptables"),
          Map.entry("--probability", "iptables"),
          Map.entry("--random-fully", "iptables"),
          Map.entry("--rcheck", "iptables"),
          Map.entry("--set", "iptables"),
          // Installing: the image script, a push to a plain-HTTP registry, EKS's add-on.
          Map.entry("--print-images", "deploy/images/build.sh"),
          Map.entry("--archive", "deploy/images/build.sh"),
          Map.entry("--tls-verify", "podman push"),
          Map.entry("--cluster-name", "aws eks delete-addon"),
          Map.entry("--addon-name", "aws eks delete-addon"),
          // The benchmark harness the sizing table points to.
          Map.entry("--only", "bench.sh"),
          Map.entry("--smoke", "bench.sh"));

  /** Labels Prometheus attaches to every series of a target, whatever the metric. */
  private static final Set<String> TARGET_LABELS =
      Set.of("instance", "job", "namespace", "pod", "node", "container", "endpoint", "service");

  /** Series Prometheus itself writes for every target. */
  private static final Set<String> PROMETHEUS_SERIES = Set.of("up");

  private static final Set<String> PROMQL_KEYWORDS =
      Set.of(
          "and",
          "or",
          "unless",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "offset",
          "bool");

  private static final Set<String> PROMQL_FUNCTIONS =
      Set.of(
          "sum",
          "avg",
          "min",
          "max",
          "count",
          "topk",
          "bottomk",
          "rate",
          "irate",
          "increase",
          "delta",
          "deriv",
          "histogram_quantile",
          "time",
          "absent",
          "clamp_min",
          "clamp_max",
          "abs",
          "vector",
          "scalar",
          "sort",
          "sort_desc",
          "max_over_time",
          "min_over_time",
          "avg_over_time");

  private static final Pattern METRIC_PREFIX =
      Pattern.compile(
          "(?<![A-Za-z0-9_:])((?:endpoint_slice_controller|kubeproxy|proxima|workqueue)_[a-z0-9_]*)");
  private static final Pattern QUOTED = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern GRAFANA_VARIABLE =
      Pattern.compile("\\$\\{[^}]*}|\\$[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern SELECTOR =
      Pattern.compile("([A-Za-z_:][A-Za-z0-9_:]*)\\s*\\{([^}]*)}");
  private static final Pattern MATCHER_LABEL =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*(?:=~|!~|!=|=)");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![A-Za-z0-9_:.])([A-Za-z_:][A-Za-z0-9_:]*)(\\s*\\()?");
  private static final Pattern LABEL_VALUES =
      Pattern.compile(
          "^\\s*label_values\\(\\s*([^,]+?)\\s*,\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)\\s*$");
  private static final Pattern FLAG =
      Pattern.compile("(?<![\\w-])--(\\[no-])?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)");
  private static final Pattern FENCED_BLOCK =
      Pattern.compile("(?ms)^[ \\t]*```([a-z]*)\\n(.*?)^[ \\t]*```");
  private static final Pattern INLINE_CODE = Pattern.compile("`([^`\\n]+)`");
  private static final Pattern ALERT_ROW =
      Pattern.compile("^\\| `(Proxima[A-Za-z]+)` \\| ([a-z]+) \\|");
  private static final Pattern ENV_DEFAULT =
      Pattern.compile("^\\$\\{env:([A-Za-z0-9_]+)(?::-(.*))?}$");

  private static Exposition exposition;

  @BeforeAll
  static void scrapeWhatTheCodeRegisters() throws IOException {
    exposition =
        Exposition.of(
            List.of(
                controllerServed(),
                proxyMetrics(),
                new Served(iptablesModeProxyRegistry(), List.of())));
  }

  @Test
  void everyDashboardQueryNamesMetricsAndLabelsTheCodeExposes() throws IOException {
    var queries = dashboardQueries();
    assertThat(queries).as("queries in %s", DASHBOARD).hasSizeGreaterThan(20);

    var problems = new ArrayList<String>();
    for (var query : queries) {
      var metrics = checkQuery(query, problems);
      if (metrics.isEmpty()) {
        problems.add("names no metric: " + query);
      }
    }
    assertThat(problems).as("problems in the queries of %s", DASHBOARD).isEmpty();
  }

  @Test
  void theDashboardReadsEveryPanelFromThePrometheusDataSourceVariable() throws IOException {
    var dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    var variables = new ArrayList<String>();
    for (var variable : dashboard.path("templating").path("list")) {
      if ("datasource".equals(variable.path("type").asText())
          && "prometheus".equals(variable.path("query").asText())) {
        variables.add(variable.path("name").asText());
      }
    }
    assertThat(variables).as("a Prometheus data-source variable").hasSize(1);
    var wanted = "${" + variables.get(0) + "}";

    var sources = new ArrayList<String>();
    forEachPanel(
        dashboard.path("panels"),
        panel -> {
          if (!"row".equals(panel.path("type").asText())) {
            sources.add(panel.path("title").asText() + ": " + uidOf(panel));
            panel.path("targets").forEach(t -> sources.add(panel.path("title") + ": " + uidOf(t)));
          }
        });
    assertThat(sources)
        .isNotEmpty()
        .allSatisfy(source -> assertThat(source).endsWith(": " + wanted));
  }

  @Test
  void theDashboardShowsSyncLatencyFailuresDropsTopologyObservedLocalityAndTheControllersWork()
      throws IOException {
    var named = new TreeSet<String>();
    for (var query : dashboardQueries()) {
      named.addAll(checkQuery(query, new ArrayList<>()));
    }
    assertThat(named)
        .contains(
            "kubeproxy_sync_proxy_rules_duration_seconds_bucket",
            "kubeproxy_sync_full_proxy_rules_duration_seconds_bucket",
            "kubeproxy_sync_partial_proxy_rules_duration_seconds_bucket",
            "kubeproxy_network_programming_duration_seconds_bucket",
            "kubeproxy_sync_proxy_rules_nftables_sync_failures_total",
            "kubeproxy_sync_proxy_rules_no_local_endpoints_total",
            "proxima_proxy_service_ports_by_topology",
            "proxima_proxy_topology_fallbacks",
            "proxima_proxy_connections_total",
            "proxima_proxy_connections_without_endpoints_total",
            "proxima_proxy_node_zone",
            "proxima_proxy_service_connections_total",
            "proxima_proxy_observed_service_ports_dropped",
            "endpoint_slice_controller_syncs",
            "workqueue_depth",
            "workqueue_queue_duration_seconds_bucket",
            "proxima_controller_hint_writes_total",
            "proxima_controller_hints_overwritten_total",
            "proxima_controller_services_by_hint_mode");
  }

  /**
   * The observed-locality row: a zone-to-zone matrix (the node's zone joined onto its connection
   * counts, one row per zone, one column per endpoint locality) and, per counted Service, the
   * shares of its connections kept on the node and in the zone.
   */
  @Test
  void theDashboardHasAZoneMatrixAndPerCountedServiceTheSharesKeptOnTheNodeAndInTheZone()
      throws IOException {
    var panels = new ArrayList<JsonNode>();
    forEachPanel(new ObjectMapper().readTree(DASHBOARD.toFile()).path("panels"), panels::add);

    var matrix = panelTitled(panels, "Zone × endpoint locality");
    var matrixQuery = matrix.path("targets").get(0).path("expr").asText();
    assertThat(matrixQuery)
        .contains("proxima_proxy_connections_total")
        .contains("on (instance) group_left (zone) proxima_proxy_node_zone")
        .contains("sum by (zone, locality)");
    var grouping = matrix.path("transformations").get(0);
    assertThat(grouping.path("id").asText()).isEqualTo("groupingToMatrix");
    assertThat(grouping.path("options").path("rowField").asText()).isEqualTo("zone");
    assertThat(grouping.path("options").path("columnField").asText()).isEqualTo("locality");

    var shares = panelTitled(panels, "Counted Services: share of connections kept");
    var queries = new ArrayList<String>();
    shares.path("targets").forEach(t -> queries.add(t.path("expr").asText()));
    assertThat(queries)
        .hasSize(2)
        .allSatisfy(
            q ->
                assertThat(q)
                    .contains("sum by (namespace, service)")
                    .contains("proxima_proxy_service_connections_total"));
    assertThat(queries.get(0)).contains("locality=~\"node\"");
    assertThat(queries.get(1)).contains("locality=~\"node|zone\"");
    assertThat(shares.path("fieldConfig").path("defaults").path("unit").asText())
        .isEqualTo("percentunit");
    assertThat(shares.toString()).contains("kept on the node").contains("kept in the zone");

    assertThat(
            panelTitled(panels, "Service ports left out by the series cap")
                .path("targets")
                .get(0)
                .path("expr")
                .asText())
        .contains("proxima_proxy_observed_service_ports_dropped");
  }

  private static JsonNode panelTitled(List<JsonNode> panels, String start) {
    return panels.stream()
        .filter(panel -> panel.path("title").asText().startsWith(start))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no panel titled " + start + "..."));
  }

  @Test
  void everyMetricNameOnTheMetricsPageIsRegisteredAndEveryRegisteredMetricIsDocumented()
      throws IOException {
    var page = Files.readString(METRICS_DOC);
    var code = new ArrayList<String>();
    var fenced = FENCED_BLOCK.matcher(page);
    while (fenced.find()) {
      code.add(fenced.group(2));
    }
    var prose = FENCED_BLOCK.matcher(page).replaceAll("");
    var documented = new TreeSet<String>();
    var inline = INLINE_CODE.matcher(prose);
    while (inline.find()) {
      var span = inline.group(1).trim();
      code.add(span);
      if (METRIC_PREFIX.matcher(span).matches() && !span.endsWith("_")) {
        documented.add(span);
      }
    }

    var unknown = new TreeSet<String>();
    for (var snippet : code) {
      var names = METRIC_PREFIX.matcher(QUOTED.matcher(snippet).replaceAll("\"\""));
      while (names.find()) {
        var name = names.group(1);
        if (!name.endsWith("_")
            && !exposition.families.containsKey(name)
            && !exposition.samples.containsKey(name)
            && !exposition.labelValues.contains(name)) {
          unknown.add(name);
        }
      }
    }
    assertThat(unknown).as("names on %s that the code does not expose", METRICS_DOC).isEmpty();
    assertThat(documented)
        .as("metrics documented in backticks on %s", METRICS_DOC)
        .containsAll(exposition.families.keySet());
  }

  @Test
  void theQueriesAndAlertRulesOnTheOperatorPagesNameExposedMetricsAndLabels() throws IOException {
    var queries = new ArrayList<String>();
    for (var page : OPERATOR_PAGES) {
      var blocks = FENCED_BLOCK.matcher(Files.readString(ROOT.resolve(page)));
      while (blocks.find()) {
        if ("promql".equals(blocks.group(1))) {
          queries.add(blocks.group(2));
        } else if ("yaml".equals(blocks.group(1)) && blocks.group(2).contains("expr:")) {
          collectExpressions(new YAMLMapper().readTree(blocks.group(2)), queries);
        }
      }
    }
    // The alerts themselves are checked in the PrometheusRule (see below), not on the pages.
    assertThat(queries).as("queries on the operator pages").isNotEmpty();

    var problems = new ArrayList<String>();
    for (var query : queries) {
      if (checkQuery(query, problems).isEmpty()) {
        problems.add("names no metric: " + query);
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyAlertExpressionNamesMetricsAndLabelsTheCodeExposes() throws IOException {
    var alerts = alertRules();
    assertThat(alerts).as("alerts in %s", ALERT_RULES).hasSizeGreaterThan(10);

    var problems = new ArrayList<String>();
    for (var alert : alerts) {
      if (checkQuery(alert.path("expr").asText(), problems).isEmpty()) {
        problems.add("names no metric: " + alert.path("alert").asText());
      }
    }
    assertThat(problems).isEmpty();
  }

  /**
   * The alert table on the metrics page lists the PrometheusRule's alerts, in its order, with their
   * severities: the rule file is the one source, the page its description.
   */
  @Test
  void theAlertTableOnTheMetricsPageListsExactlyTheAlertsOfThePrometheusRule() throws IOException {
    var inRules = new ArrayList<String>();
    for (var alert : alertRules()) {
      inRules.add(
          alert.path("alert").asText() + " " + alert.path("labels").path("severity").asText());
    }

    var onPage = new ArrayList<String>();
    var inSection = false;
    for (var line : Files.readString(METRICS_DOC).split("\n")) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## What to alert on");
        continue;
      }
      var row = ALERT_ROW.matcher(line);
      if (inSection && row.find()) {
        onPage.add(row.group(1) + " " + row.group(2));
      }
    }

    assertThat(onPage)
        .as("alerts and severities in the table of %s, against %s", METRICS_DOC, ALERT_RULES)
        .containsExactlyElementsOf(inRules);
  }

  private static List<JsonNode> alertRules() throws IOException {
    var rule = new YAMLMapper().readTree(ALERT_RULES.toFile());
    var alerts = new ArrayList<JsonNode>();
    for (var group : rule.path("spec").path("groups")) {
      for (var entry : group.path("rules")) {
        if (entry.hasNonNull("alert")) {
          alerts.add(entry);
        }
      }
    }
    return alerts;
  }

  @Test
  void everyFlagOnTheControllerPageIsAnOptionOfTheControllerCommandLine() throws IOException {
    var options = optionNames(ControllerMain.commandLine());
    assertThat(flagsIn(ROOT.resolve("docs/controller.md")))
        .isNotEmpty()
        .allSatisfy(flag -> assertThat(options).as("controller options").contains(flag));
  }

  @Test
  void everyFlagOnTheProxyPageIsAnOptionOfTheProxyCommandLine() throws IOException {
    var options = new TreeSet<String>(optionNames(ProxyMain.commandLine()));
    options.addAll(OTHER_TOOLS_FLAGS.keySet());
    assertThat(flagsIn(ROOT.resolve("docs/proxy.md")))
        .isNotEmpty()
        .allSatisfy(flag -> assertThat(options).as("proxy options").contains(flag));
  }

  @Test
  void everyFlagOnTheOperatorPagesBelongsToProximaOrToANamedOtherTool() throws IOException {
    var options = new TreeSet<String>(optionNames(ControllerMain.commandLine()));
    options.addAll(optionNames(ProxyMain.commandLine()));
    options.addAll(OTHER_TOOLS_FLAGS.keySet());
    for (var page : OPERATOR_PAGES) {
      assertThat(flagsIn(ROOT.resolve(page)))
          .as(page)
          .allSatisfy(flag -> assertThat(options).as("%s mentions %s", page, flag).contains(flag));
    }
  }

  @Test
  void theRunOptionTablesListEveryRunOptionWithItsEnvironmentVariableAndDefault()
      throws IOException {
    checkRunTable(ROOT.resolve("docs/controller.md"), ControllerMain.commandLine());
    checkRunTable(ROOT.resolve("docs/proxy.md"), ProxyMain.commandLine());
  }

  /**
   * The sample log lines on the component pages (text format: time, level, logger, message,
   * key=value pairs) are ones the code writes: the named class logs that message with those keys.
   */
  @Test
  void theSampleLogLinesOnTheComponentPagesAreOnesTheCodeWrites() throws IOException {
    var problems = new ArrayList<String>();
    int samples = 0;
    for (var page : List.of("docs/proxy.md", "docs/controller.md")) {
      var blocks = FENCED_BLOCK.matcher(Files.readString(ROOT.resolve(page)));
      while (blocks.find()) {
        for (var line : blocks.group(2).split("\n")) {
          var sample = LOG_LINE.matcher(line.trim());
          if (!sample.matches()) {
            continue;
          }
          samples++;
          var source = mainSource(sample.group(1));
          if (source == null) {
            problems.add(page + ": no class " + sample.group(1) + " for: " + line);
            continue;
          }
          var text = Files.readString(source);
          if (text.contains("RateLimitedSummary")) {
            // The shared summary adds its own keys (the time of the first event summed).
            text += Files.readString(SUMMARY);
          }
          var rest = sample.group(2);
          int firstKey =
              rest.indexOf('=') < 0 ? rest.length() : rest.lastIndexOf(' ', rest.indexOf('='));
          var message = rest.substring(0, Math.max(firstKey, 0)).trim();
          if (!text.contains("\"" + message + "\"")) {
            problems.add(page + ": " + source.getFileName() + " never logs \"" + message + "\"");
          }
          var keys = Pattern.compile("([A-Za-z]+)=").matcher(rest.substring(Math.max(firstKey, 0)));
          while (keys.find()) {
            if (!text.contains("\"" + keys.group(1) + "\"")) {
              problems.add(page + ": " + source.getFileName() + " logs no key " + keys.group(1));
            }
          }
        }
      }
    }
    assertThat(samples).as("sample log lines on the component pages").isGreaterThanOrEqualTo(3);
    assertThat(problems).isEmpty();
  }

  private static final Path SUMMARY =
      ROOT.resolve("cli-support/src/main/java/dev/proxima/cli/RateLimitedSummary.java");

  private static final Pattern LOG_LINE =
      Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (?:TRACE|DEBUG|INFO|WARN|ERROR) +(\\w+) (.+)");

  /** The main source file of a class, by simple name, in the controller or proxy module. */
  private static Path mainSource(String simpleName) throws IOException {
    for (var module : List.of("controller", "proxy")) {
      try (var files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
        var found =
            files.filter(f -> f.getFileName().toString().equals(simpleName + ".java")).findFirst();
        if (found.isPresent()) {
          return found.get();
        }
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- the code's metrics

  private static Served controllerServed() {
    var registry = new PrometheusRegistry();
    var metrics = new ControllerMetrics(registry);
    exerciseController(metrics);
    return new Served(registry, metrics.streamedFamilies());
  }

  private static void exerciseController(ControllerMetrics metrics) {
    var service = new ObjectKey("shop", "checkout");
    metrics.syncFinished("success");
    metrics.sliceWritten("success");
    metrics.slicesChanged("Disabled", "PreferSameZone", 1);
    metrics.reconciled(Duration.ofMillis(3));
    metrics.hintsOverwritten();
    metrics.leading(true);
    metrics.serviceTrafficDistribution(service, "PreferSameZone");
    metrics.serviceMode(service, "PreferSameZone");
    metrics.hintsRemoved("NoTrafficDistribution");
    var queue = metrics.workQueue();
    queue.added();
    queue.depth(1);
    queue.retried();
    queue.queueLatency(Duration.ofMillis(2));
    queue.workDuration(Duration.ofMillis(2));
  }

  /**
   * What one /metrics endpoint serves: its registry, and the families its handler writes straight
   * into the response after the registry's scrape (see {@code PrometheusMetricsHandler}).
   */
  private record Served(PrometheusRegistry registry, List<StreamedFamily> streamed) {}

  private static Served proxyMetrics() {
    var registry = new PrometheusRegistry();
    var metrics = new ProxyMetrics(registry, ProxyMode.nftables);
    var now = Instant.parse("2025-01-01T00:00:00Z");
    metrics.queued(IpFamily.IPV4, now);
    metrics.synced(IpFamily.IPV4, true, Duration.ofMillis(40), now);
    metrics.synced(IpFamily.IPV4, false, Duration.ofMillis(2), now);
    metrics.networkProgrammed(IpFamily.IPV4, Duration.ofSeconds(1));
    metrics.serviceChanged(1);
    metrics.endpointsChanged(1);
    metrics.noLocalEndpoints(IpFamily.IPV4, 0, 1);
    metrics.nftablesFailed(IpFamily.IPV4);
    metrics.healthz(200);
    metrics.livez(200);
    metrics.topology(IpFamily.IPV4, Map.of("PreferSameZone", 1), Map.of("no_endpoint_in_zone", 0));
    metrics.conntrackReconciled(IpFamily.IPV4, Duration.ofMillis(5), 1);
    metrics.observedServicePortsDropped(IpFamily.IPV4, 0);
    var web =
        new dev.proxima.proxy.model.ServicePortName(
            new ObjectKey("shop", "web"), "http", dev.proxima.proxy.model.Protocol.TCP);
    var connections =
        new ConnectionLocalityMetrics(
            Map.of(
                "IPv4",
                () ->
                    Optional.of(
                        new ConnectionCounts(
                            Map.of(Locality.ZONE, 3L),
                            1,
                            dev.proxima.proxy.model.ServicePortCounts.of(
                                Map.of(web, Map.of(Locality.ZONE, 3L)))))),
            () -> "zone-a");
    registry.register(connections);
    registry.register(new dev.proxima.proxy.metrics.ZoneSpillMetrics(() -> Map.of(web, 375), 1000));
    return new Served(registry, List.of(connections.serviceConnections()));
  }

  /** The iptables mode registers its own failure counters, rule counts and backend. */
  private static PrometheusRegistry iptablesModeProxyRegistry() {
    var registry = new PrometheusRegistry();
    var metrics = new ProxyMetrics(registry, ProxyMode.iptables);
    metrics.iptablesRestoreFailed(IpFamily.IPV4, true);
    metrics.iptablesRules(
        IpFamily.IPV4, Map.of("nat", 10, "filter", 3), Map.of("nat", 4, "filter", 3));
    metrics.iptablesBackend("nft");
    return registry;
  }

  /** What Prometheus stores from the registries: family and sample names, labels, values. */
  private static final class Exposition {
    /** Exposed family name (counters with {@code _total}) to its sample names. */
    final Map<String, Set<String>> families = new TreeMap<>();

    /** Exposed sample name to the label names seen on it. */
    final Map<String, Set<String>> samples = new TreeMap<>();

    final Set<String> labelValues = new TreeSet<>();

    static Exposition of(List<Served> endpoints) throws IOException {
      var exposition = new Exposition();
      for (var served : endpoints) {
        // The registry first: its scrape reads what the streamed families then write.
        var builder = MetricSnapshots.builder();
        served.registry().scrape().forEach(builder::metricSnapshot);
        var taken = new TreeSet<String>();
        served.registry().scrape().forEach(s -> taken.add(s.getMetadata().getPrometheusName()));
        var written = new java.io.StringWriter();
        var series =
            new dev.proxima.http.SeriesWriter(written, dev.proxima.http.SeriesWriter.Format.TEXT);
        for (var family : served.streamed()) {
          var snapshot = family.snapshot();
          if (taken.add(snapshot.getMetadata().getPrometheusName())) {
            builder.metricSnapshot(snapshot);
          } else {
            // Only a name in the text formats, as the handler writes it (an upstream name that
            // client_java would merge with a registry family).
            family.write(series);
            exposition.families.put(family.name(), Set.of(family.name()));
            exposition.samples.putIfAbsent(family.name(), new TreeSet<>());
          }
        }
        var snapshots = builder.build();
        for (var snapshot : snapshots) {
          exposition.addFamily(snapshot);
        }
        var text = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(text, snapshots);
        exposition.addSamples(text.toString(StandardCharsets.UTF_8) + written);
      }
      return exposition;
    }

    private void addFamily(MetricSnapshot snapshot) {
      var name = snapshot.getMetadata().getPrometheusName();
      List<String> sampleNames;
      String family;
      if (snapshot instanceof CounterSnapshot) {
        family = name + "_total";
        sampleNames = List.of(family);
      } else if (snapshot instanceof HistogramSnapshot) {
        family = name;
        sampleNames = List.of(name + "_bucket", name + "_sum", name + "_count");
      } else if (snapshot instanceof SummarySnapshot) {
        family = name;
        sampleNames = List.of(name, name + "_sum", name + "_count");
      } else if (snapshot instanceof InfoSnapshot) {
        // An info metric is a gauge of 1 in the text format, its name ending in _info.
        family = name + "_info";
        sampleNames = List.of(family);
      } else if (snapshot instanceof GaugeSnapshot || snapshot instanceof UnknownSnapshot) {
        family = name;
        sampleNames = List.of(name);
      } else {
        throw new AssertionError(
            "teach this test how " + snapshot.getClass().getSimpleName() + " is exposed: " + name);
      }
      families.put(family, Set.copyOf(sampleNames));
      sampleNames.forEach(sample -> samples.putIfAbsent(sample, new TreeSet<>()));
    }

    private void addSamples(String text) {
      var sample = Pattern.compile("^([A-Za-z_:][A-Za-z0-9_:]*)(?:\\{(.*)})?\\s+\\S+");
      var label = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
      for (var line : text.split("\n")) {
        var match = sample.matcher(line);
        if (line.startsWith("#") || !match.find()) {
          continue;
        }
        var labels = samples.get(match.group(1));
        assertThat(labels).as("scraped sample %s belongs to a registered family", line).isNotNull();
        if (match.group(2) == null) {
          continue;
        }
        var pairs = label.matcher(match.group(2));
        while (pairs.find()) {
          labels.add(pairs.group(1));
          labelValues.add(pairs.group(2));
        }
      }
    }
  }

  // ---------------------------------------------------------------- PromQL

  private static List<String> dashboardQueries() throws IOException {
    var dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    var queries = new ArrayList<String>();
    forEachPanel(
        dashboard.path("panels"),
        panel -> panel.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
    for (var variable : dashboard.path("templating").path("list")) {
      if ("query".equals(variable.path("type").asText())) {
        queries.add(variable.path("definition").asText());
        var query = variable.path("query");
        queries.add(query.isTextual() ? query.asText() : query.path("query").asText());
      }
    }
    return queries;
  }

  private static void collectExpressions(JsonNode node, List<String> into) {
    if (node.isObject() && node.path("expr").isTextual()) {
      into.add(node.path("expr").asText());
    }
    node.forEach(child -> collectExpressions(child, into));
  }

  private static void forEachPanel(JsonNode panels, java.util.function.Consumer<JsonNode> action) {
    for (var panel : panels) {
      action.accept(panel);
      forEachPanel(panel.path("panels"), action);
    }
  }

  private static String uidOf(JsonNode node) {
    return node.path("datasource").path("uid").asText("<none>");
  }

  /**
   * Collects the metric names of one PromQL expression (or Grafana {@code label_values} query),
   * reporting names the code does not expose, matchers on labels the metric does not have, and
   * unknown functions.
   */
  private static Set<String> checkQuery(String query, List<String> problems) {
    var metrics = new TreeSet<String>();
    var labelValues = LABEL_VALUES.matcher(query);
    if (labelValues.matches()) {
      var names = checkQuery(labelValues.group(1), problems);
      for (var name : names) {
        checkLabel(name, labelValues.group(2), query, problems);
      }
      return names;
    }
    var text = QUOTED.matcher(query).replaceAll("\"\"");
    text = GRAFANA_VARIABLE.matcher(text).replaceAll(" ");
    var selectors = SELECTOR.matcher(text);
    while (selectors.find()) {
      var matchers = MATCHER_LABEL.matcher(selectors.group(2));
      while (matchers.find()) {
        checkLabel(selectors.group(1), matchers.group(1), query, problems);
      }
    }
    text = text.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ");
    text = GROUPING.matcher(text).replaceAll(" ");
    var identifiers = IDENTIFIER.matcher(text);
    while (identifiers.find()) {
      var name = identifiers.group(1);
      if (PROMQL_KEYWORDS.contains(name)) {
        continue;
      }
      if (identifiers.group(2) != null) {
        if (!PROMQL_FUNCTIONS.contains(name)) {
          problems.add("unknown function " + name + " in " + query);
        }
      } else {
        metrics.add(name);
        if (!exposition.samples.containsKey(name) && !PROMETHEUS_SERIES.contains(name)) {
          problems.add(name + " is not exposed (in " + query + ")");
        }
      }
    }
    return metrics;
  }

  private static void checkLabel(String metric, String label, String query, List<String> problems) {
    var labels = exposition.samples.get(metric);
    if (labels == null || TARGET_LABELS.contains(label)) {
      return;
    }
    if ("le".equals(label) && metric.endsWith("_bucket")) {
      return;
    }
    if (!labels.contains(label)) {
      problems.add(metric + " has no label " + label + " (in " + query + ")");
    }
  }

  // ---------------------------------------------------------------- flags

  /** Every long option name of a command line and its subcommands, negated forms included. */
  private static Set<String> optionNames(CommandLine commandLine) {
    var names = new TreeSet<String>();
    for (var option : commandLine.getCommandSpec().options()) {
      for (var name : option.names()) {
        names.add(name);
        if (option.negatable()) {
          names.add(
              commandLine
                  .getNegatableOptionTransformer()
                  .makeNegative(name, commandLine.getCommandSpec()));
        }
      }
    }
    for (var subcommand : commandLine.getSubcommands().values()) {
      names.addAll(optionNames(subcommand));
    }
    return names;
  }

  /**
   * The {@code --flags} a page mentions; {@code --[no-]x} counts as {@code --x} and {@code --no-x}.
   */
  private static Set<String> flagsIn(Path page) throws IOException {
    var flags = new TreeSet<String>();
    var matcher = FLAG.matcher(Files.readString(page));
    while (matcher.find()) {
      flags.add("--" + matcher.group(2));
      if (matcher.group(1) != null) {
        flags.add("--no-" + matcher.group(2));
      }
    }
    return flags;
  }

  /**
   * Checks the table under the page's "`run` options" heading: a row for every option of {@code
   * run}, each naming the environment variable the option reads and, where the code has a plain
   * default and the page writes one in backticks, the same default.
   */
  private static void checkRunTable(Path page, CommandLine root) throws IOException {
    var run = root.getSubcommands().get("run");
    var declared = declaredDefaults(run.getCommandSpec().userObject().getClass());

    var rows = new LinkedHashMap<String, String[]>();
    var inTable = false;
    for (var line : Files.readString(page).split("\n")) {
      if (line.startsWith("#")) {
        inTable = line.contains("`run` options");
        continue;
      }
      if (inTable && line.startsWith("| `--")) {
        var cells = line.split("(?<!\\\\)\\|");
        var flag = cells[1].trim().replace("`", "").replace("[no-]", "");
        rows.put(flag, cells);
      }
    }

    var expected = new TreeSet<String>();
    for (var option : run.getCommandSpec().options()) {
      if (!option.usageHelp() && !option.versionHelp()) {
        expected.add(option.longestName());
      }
    }
    assertThat(rows.keySet()).as("run options documented on %s", page).hasSameElementsAs(expected);

    for (var row : rows.entrySet()) {
      var raw = declared.get(row.getKey());
      assertThat(raw).as("%s declares a default for %s", page, row.getKey()).isNotNull();
      Matcher env = ENV_DEFAULT.matcher(raw);
      assertThat(env.matches()).as("%s reads its environment: %s", row.getKey(), raw).isTrue();
      var cells = row.getValue();
      assertThat(cells[2].trim().replace("`", ""))
          .as("environment variable of %s on %s", row.getKey(), page)
          .isEqualTo(env.group(1));
      var codeDefault = env.group(2);
      var pageDefault = INLINE_CODE.matcher(cells[3]);
      if (codeDefault != null && !codeDefault.contains("${") && pageDefault.find()) {
        assertThat(pageDefault.group(1))
            .as("default of %s on %s", row.getKey(), page)
            .isEqualTo(codeDefault);
      }
    }
  }

  /** Option name to the raw {@code defaultValue} of its annotation, mixins included. */
  private static Map<String, String> declaredDefaults(Class<?> command) {
    var defaults = new TreeMap<String, String>();
    for (Field field : command.getDeclaredFields()) {
      var option = field.getAnnotation(CommandLine.Option.class);
      if (option != null) {
        for (var name : option.names()) {
          defaults.put(name, option.defaultValue());
        }
      }
      if (field.isAnnotationPresent(CommandLine.Mixin.class)) {
        defaults.putAll(declaredDefaults(field.getType()));
      }
    }
    return defaults;
  }
}
