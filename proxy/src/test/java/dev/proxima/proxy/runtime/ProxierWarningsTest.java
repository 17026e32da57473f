package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.dataplane.IptablesDataPlane;
import dev.proxima.proxy.dataplane.NftDataPlane;
import dev.proxima.proxy.health.ProxyHealth;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.sync.SyncPolicy;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/** A tenant cannot flood the proxy's log: warnings are one line per object and reason. */
class ProxierWarningsTest {
  private final MutableClock clock = new MutableClock();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final ProxierTest.FakeCache cache = new ProxierTest.FakeCache();
  private final ProxierTest.RecordingLoader loader = new ProxierTest.RecordingLoader();
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(Proxier.class);

  @BeforeEach
  void capture() {
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
  }

  private Proxier start(ProxyMode mode) {
    return start(mode, Host.none());
  }

  private Proxier start(ProxyMode mode, Host host) {
    var settings = new RuleSettings(List.of("10.0.0.0/8"), false, 14, List.of());
    var metrics = new ProxyMetrics(registry, mode);
    var plane =
        mode == ProxyMode.nftables
            ? new NftDataPlane(IpFamily.IPV4, settings, loader, metrics, Clock.systemUTC())
            : new IptablesDataPlane(IpFamily.IPV4, settings, loader, metrics);
    var config = ProxyConfig.defaults("node-a").withRules(settings);
    return Ipv4Proxiers.of(
        config, cache, plane, host, metrics, new ProxyHealth(clock, Duration.ofSeconds(60)), clock);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aSliceOfTenThousandMulticastEndpointsIsOneLinePerChangeNotOnePerEndpointPerSync(
      ProxyMode mode) throws Exception {
    var proxier = start(mode);
    var multicast = new String[10_000];
    for (int i = 0; i < multicast.length; i++) {
      multicast[i] = "224.0." + i / 256 + "." + i % 256;
    }
    cache.services.add(ApiObjects.service("tenant", "flood", "10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("tenant", "flood", multicast));
    var key = new ObjectKey("tenant", "flood");

    proxier.sync(Set.of());
    for (int i = 0; i < 5; i++) {
      proxier.sync(Set.of(key)); // the tenant rewrites the slice: partial syncs
      proxier.requireFullSync();
      proxier.sync(Set.of()); // and full syncs
    }

    var warnings = appender.list.stream().filter(event -> event.getLevel() == Level.WARN).toList();
    assertThat(warnings)
        .as("one line for the slice and its reason, over eleven syncs")
        .hasSize(1)
        .first()
        .satisfies(
            event ->
                assertThat(event.getFormattedMessage())
                    .contains("EndpointSlice tenant/flood-1", "10000 warnings", "special-address")
                    .hasSizeLessThan(1_000));
    assertThat(scrape())
        .contains(
            "proxima_proxy_plan_warnings{ip_family=\"IPv4\",reason=\"special-address\"} 10000.0");
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aChangeInAnObjectsWarningsIsToldOnceMore(ProxyMode mode) {
    var proxier = start(mode);
    cache.services.add(ApiObjects.service("tenant", "flood", "10.96.0.10").build());
    cache.slices.add(ApiObjects.slice("tenant", "flood", "224.0.0.1", "224.0.0.2"));
    proxier.sync(Set.of());
    cache.slices.clear();
    cache.slices.add(ApiObjects.slice("tenant", "flood", "224.0.0.1", "224.0.0.2", "224.0.0.3"));

    proxier.sync(Set.of(new ObjectKey("tenant", "flood")));
    proxier.sync(Set.of(new ObjectKey("tenant", "flood")));

    assertThat(appender.list.stream().filter(event -> event.getLevel() == Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .hasSize(2)
        .satisfies(lines -> assertThat(lines.get(1)).contains("3 warnings"));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aNodeAddedWithAServicesExternalIpTakesItAwayInOneFullSyncWarnedOnce(ProxyMode mode) {
    var proxier = start(mode);
    var results = new ArrayList<SyncResult>();
    proxier.subscribe(results::add);
    cache.services.add(
        ApiObjects.service("evil", "a", "10.96.0.99").externalIps("192.168.0.3").build());
    cache.slices.add(ApiObjects.slice("evil", "a", "10.244.9.9"));
    proxier.sync(Set.of());
    assertThat(loader.scripts.get(0)).contains("192.168.0.3");

    cache.clusterNodes =
        ClusterNodeAddresses.of(
            List.of(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName("node-b")
                    .endMetadata()
                    .withNewStatus()
                    .addNewAddress()
                    .withType("InternalIP")
                    .withAddress("192.168.0.3")
                    .endAddress()
                    .endStatus()
                    .build()));
    proxier.sync(Set.of());
    proxier.sync(Set.of());

    assertThat(results)
        .extracting(r -> r.decision().reason())
        .containsExactly(
            SyncPolicy.Reason.FIRST_SYNC,
            SyncPolicy.Reason.ADDRESS_POLICY_CHANGED,
            SyncPolicy.Reason.NONE);
    assertThat(loader.scripts.get(loader.scripts.size() - 1)).doesNotContain("192.168.0.3");
    assertThat(appender.list.stream().filter(event -> event.getLevel() == Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .singleElement()
        .asString()
        .contains("Service evil/a", "external-ip-forbidden", "192.168.0.3", "node node-b");
  }

  private String scrape() throws Exception {
    var out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void theRunningProxyRefusesAnExternalIpOnOneOfTheHostsInterfaceAddresses(ProxyMode mode) {
    var proxier =
        start(mode, Host.withUdpFlows(() -> List.of("172.31.5.5"), (f, now, before) -> 0));
    cache.services.add(
        ApiObjects.service("evil", "a", "10.96.0.99").externalIps("172.31.5.5").build());
    cache.slices.add(ApiObjects.slice("evil", "a", "10.244.9.9"));

    proxier.sync(Set.of());

    assertThat(loader.scripts.get(0)).doesNotContain("172.31.5.5");
    assertThat(appender.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(line -> assertThat(line).contains("Service evil/a", "external-ip-forbidden"));
  }
}
