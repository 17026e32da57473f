package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.testing.ApiObjects;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The proxier applies --observe-locality and its series cap to what the nft data plane counts. */
class ProxierObserveLocalityTest {
  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private Proxier proxier;

  private void start(ObserveLocality mode, int maxSeries) {
    var metrics = new ProxyMetrics(registry, ProxyMode.nftables);
    var rules = RuleSettings.defaults().withObserveLocality(mode, maxSeries);
    proxier =
        Ipv4Proxiers.of(
            ProxyConfig.defaults("node-a").withRules(rules),
            cache,
            new NftDataPlane(IpFamily.IPV4, rules, loader, metrics, clock),
            Host.none(),
            metrics,
            new ProxyHealth(clock, Duration.ofSeconds(60)),
            clock);
  }

  /** The ClusterIP of each Service {@link #add} added. */
  private final java.util.Map<String, String> clusterIps = new java.util.HashMap<>();

  /**
   * A Service's key in the counting sets, as an element line of the script: its ClusterIP, the
   * protocol and the Service port the client dials, 80 (not the slice's port 8080).
   */
  private String counted(String service) {
    // A pattern: the key ends its line or is followed by the next element's comma.
    return "\t" + java.util.regex.Pattern.quote(clusterIps.get(service) + " . tcp . 80") + "[,\n]";
  }

  private void add(String service, String clusterIp, boolean observed) {
    clusterIps.put(service, clusterIp);
    var spec = ApiObjects.service("shop", service, clusterIp);
    cache.services.add((observed ? spec.observeLocality() : spec).build());
    cache.slices.add(ApiObjects.slice("shop", service, "10.244.1." + clusterIp.substring(8)));
  }

  private String lastScript() {
    return loader.scripts.get(loader.scripts.size() - 1);
  }

  private String scrape() throws Exception {
    var out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void countsOnlyAnnotatedServicesByDefault() {
    start(ObserveLocality.ANNOTATED, RuleSettings.DEFAULT_OBSERVE_MAX_SERIES);
    add("web", "10.96.0.10", true);
    add("db", "10.96.0.11", false);

    proxier.sync(Set.of());

    assertThat(lastScript())
        .contains("add element ip proxima " + NftNames.SERVICE_SET_PREFIX + "zone {\n")
        .containsPattern(counted("web"))
        .doesNotContainPattern(counted("db"));
  }

  @Test
  void allCountsEveryService() {
    start(ObserveLocality.ALL, RuleSettings.DEFAULT_OBSERVE_MAX_SERIES);
    add("web", "10.96.0.10", true);
    add("db", "10.96.0.11", false);

    proxier.sync(Set.of());

    assertThat(lastScript()).containsPattern(counted("web")).containsPattern(counted("db"));
  }

  @Test
  void offCountsNothingNotEvenTheNodesConnections() {
    start(ObserveLocality.OFF, RuleSettings.DEFAULT_OBSERVE_MAX_SERIES);
    add("web", "10.96.0.10", true);

    proxier.sync(Set.of());

    assertThat(lastScript()).doesNotContain("counter").doesNotContain("filter-postrouting");
  }

  @Test
  void theCapLeavesLaterPortsOutSaysHowManyWarnsOnceAndLetsOneInWhenACountedOneGoes()
      throws Exception {
    var appender = new ListAppender<ILoggingEvent>();
    appender.start();
    var logger = (Logger) LoggerFactory.getLogger(Proxier.class);
    logger.addAppender(appender);
    try {
      start(ObserveLocality.ANNOTATED, 4); // one port's series
      add("a", "10.96.0.10", true);
      add("b", "10.96.0.11", true);
      add("c", "10.96.0.12", true);

      proxier.sync(Set.of());
      proxier.sync(Set.of());

      assertThat(lastScript()).containsPattern(counted("a")).doesNotContainPattern(counted("b"));
      assertThat(scrape())
          .contains("proxima_proxy_observed_service_ports_dropped{ip_family=\"IPv4\"} 2.0");

      // shop/a goes: a partial sync takes it out and lets shop/b in, and only that.
      cache.services.removeIf(s -> s.getMetadata().getName().equals("a"));
      cache.slices.removeIf(s -> s.getMetadata().getName().equals("a-1"));
      proxier.sync(Set.of(new ObjectKey("shop", "a")));

      var delta = lastScript();
      assertThat(delta)
          .doesNotStartWith("add table")
          .containsPattern("add element ip proxima service-node \\{\n" + counted("b"))
          .containsPattern("delete element ip proxima service-node \\{\n" + counted("a"))
          .doesNotContainPattern(counted("c"));
      assertThat(scrape())
          .contains("proxima_proxy_observed_service_ports_dropped{ip_family=\"IPv4\"} 1.0");
      assertThat(appender.list)
          .filteredOn(event -> event.getLevel() == Level.WARN)
          .extracting(ILoggingEvent::getFormattedMessage)
          .filteredOn(message -> message.contains("--observe-locality-max-series"))
          .hasSize(1);
    } finally {
      logger.detachAppender(appender);
    }
  }
}
