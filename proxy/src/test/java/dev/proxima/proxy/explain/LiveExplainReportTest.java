package dev.proxima.proxy.explain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.ExplainReport;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.testing.ClusterObjects;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveExplainReportTest {
  private static final Instant FULL = Instant.parse("2026-11-24T09:00:00Z");
  private static final Instant PARTIAL = Instant.parse("2026-11-24T09:00:05Z");
  private static final Instant FAILED = Instant.parse("2026-11-24T09:00:07Z");
  private static final Instant NOW = Instant.parse("2026-11-24T09:00:10Z");

  /** A proxy that counts nothing per Service port: --observe-locality=off. */
  private static final ObservedLocality NOT_COUNTED =
      ObservedLocality.notCounted("--observe-locality=off: the rules count no connection");

  /** shop/web with two endpoints on node-a, shop/api with one elsewhere, both one port. */
  private static NodePlanner.FamilyPlan plan() {
    return NodePlanner.plan(
        IpFamily.IPV4,
        "node-a",
        ClusterObjects.node("node-a", "zone-a"),
        null,
        List.of(
            ClusterObjects.service("shop", "web", "10.96.0.20"),
            ClusterObjects.service("shop", "api", "10.96.0.30")),
        List.of(
            ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5", "10.244.1.6"),
            ClusterObjects.slice("shop", "api", "node-b", "10.244.2.7")),
        AddressPolicy.ofNode(ClusterObjects.node("node-a", "zone-a")),
        ZoneDemand.unknown());
  }

  private static List<SyncState> sync() {
    var ipv4 =
        SyncState.notSynced(IpFamily.IPV4)
            .succeeded(true, FULL, 40, 2)
            .succeeded(false, PARTIAL, 7, 2)
            .failed("Error: Could not process rule: No such file or directory\nline 2", FAILED);
    var ipv6 = SyncState.notSynced(IpFamily.IPV6).succeeded(true, FULL, 3, 0);
    return List.of(ipv4, ipv6);
  }

  private static LiveExplain live(ObjectKey service, int max, ObservedLocality locality) {
    return LiveExplain.of(
        "node-a",
        NOW,
        true,
        new LiveExplain.PendingChanges(1, 3),
        sync(),
        List.of(plan()),
        service,
        max,
        locality);
  }

  private static LiveExplain live() {
    return live(null, LiveExplain.MAX_SERVICE_PORTS, NOT_COUNTED);
  }

  private static JsonNode json(LiveExplain live) throws Exception {
    return new ObjectMapper().readTree(LiveExplainReport.json(live));
  }

  @Test
  void theTextIsTheOfflineReportFollowedByTheSyncStateAndSaysLocalityIsNotCounted() {
    var text = LiveExplainReport.text(live());

    assertThat(text).startsWith(ExplainReport.text(List.of(plan())));
    assertThat(text.substring(ExplainReport.text(List.of(plan())).length()))
        .isEqualTo(
            """

            Sync state of the proxy on node-a at 2026-11-24T09:00:10Z:
              informers:          synced
              pending changes:    1 Services, 3 EndpointSlices
              IPv4:               last full sync 2026-11-24T09:00:00Z, last partial sync 2026-11-24T09:00:05Z, 7 rule lines in the latest load, 2 service ports; FAILING: the kernel keeps the previous rules
              IPv4 last error:    2026-11-24T09:00:07Z: Error: Could not process rule: No such file or directory
                                  line 2
              IPv6:               last full sync 2026-11-24T09:00:00Z, last partial sync never, 3 rule lines in the latest load, 0 service ports
              observed locality:  not counted: --observe-locality=off: the rules count no connection
            """);
  }

  @Test
  void theJsonHasTheOfflineRowsWithTheirFamilyAndTheSyncStateOfEachFamily() throws Exception {
    var json = json(live());
    var offline = new ObjectMapper().readTree(ExplainReport.json(List.of(plan())));

    assertThat(json.path("node").asText()).isEqualTo("node-a");
    assertThat(json.path("at").asText()).isEqualTo("2026-11-24T09:00:10Z");
    assertThat(json.path("service").isNull()).isTrue();
    var rows = json.path("servicePorts");
    assertThat(rows).hasSize(2);
    for (int i = 0; i < rows.size(); i++) {
      var row = (com.fasterxml.jackson.databind.node.ObjectNode) rows.get(i).deepCopy();
      assertThat(row.remove("family").asText()).isEqualTo("IPv4");
      assertThat(row.remove("observedLocality").isNull()).isTrue();
      assertThat(row).isEqualTo(offline.get(i));
    }
    assertThat(json.path("servicePortsTotal").asInt()).isEqualTo(2);
    assertThat(json.path("truncated").asBoolean()).isFalse();

    var sync = json.path("sync");
    assertThat(sync.path("informersSynced").asBoolean()).isTrue();
    assertThat(sync.path("pendingChanges").toString())
        .isEqualTo("{\"services\":1,\"endpointSlices\":3}");
    assertThat(sync.path("pendingChanges").path("services").asInt()).isEqualTo(1);
    assertThat(sync.path("pendingChanges").path("endpointSlices").asInt()).isEqualTo(3);
    var ipv4 = sync.path("families").get(0);
    assertThat(ipv4.path("family").asText()).isEqualTo("IPv4");
    assertThat(ipv4.path("lastFullSync").asText()).isEqualTo("2026-11-24T09:00:00Z");
    assertThat(ipv4.path("lastPartialSync").asText()).isEqualTo("2026-11-24T09:00:05Z");
    assertThat(ipv4.path("rulesLoaded").asInt()).isEqualTo(7);
    assertThat(ipv4.path("servicePorts").asInt()).isEqualTo(2);
    assertThat(ipv4.path("failing").asBoolean()).isTrue();
    assertThat(ipv4.path("lastError").path("message").asText()).startsWith("Error: Could not");
    assertThat(ipv4.path("lastError").path("at").asText()).isEqualTo("2026-11-24T09:00:07Z");
    var ipv6 = sync.path("families").get(1);
    assertThat(ipv6.path("lastPartialSync").isNull()).isTrue();
    assertThat(ipv6.path("lastError").isNull()).isTrue();
    assertThat(ipv6.path("failing").asBoolean()).isFalse();

    assertThat(json.path("observedLocality").path("counted").asBoolean()).isFalse();
    assertThat(json.path("observedLocality").path("reason").asText())
        .contains("--observe-locality=off");
  }

  @Test
  void oneServiceIsShownAloneAndAnUnknownOneIsSaidToHaveNoPorts() throws Exception {
    var web = live(new ObjectKey("shop", "web"), 10, NOT_COUNTED);
    assertThat(json(web).path("service").asText()).isEqualTo("shop/web");
    assertThat(json(web).path("servicePorts"))
        .extracting(row -> row.path("service").asText())
        .containsExactly("shop/web");
    assertThat(LiveExplainReport.text(web))
        .contains("shop/web port http")
        .doesNotContain("shop/api");

    var missing = live(new ObjectKey("shop", "gone"), 10, NOT_COUNTED);
    assertThat(json(missing).path("servicePorts")).isEmpty();
    assertThat(json(missing).path("servicePortsTotal").asInt()).isZero();
    assertThat(LiveExplainReport.text(missing))
        .contains("Service shop/gone has no ports in this proxy's rules");
  }

  @Test
  void aClusterBeyondTheCapIsCutAndTheAnswerSaysHowManyWereLeftOut() throws Exception {
    var cut = live(null, 1, NOT_COUNTED);

    assertThat(json(cut).path("servicePorts")).hasSize(1);
    assertThat(json(cut).path("servicePortsTotal").asInt()).isEqualTo(2);
    assertThat(json(cut).path("truncated").asBoolean()).isTrue();
    assertThat(LiveExplainReport.text(cut))
        .contains("... 1 more service ports not shown (at most 1 in one answer)")
        .contains("--service NAMESPACE/NAME");
  }

  @Test
  void aCountingSourceShowsItsFiguresUnderEachServicePort() throws Exception {
    var webPort =
        plan().ports().stream()
            .map(planned -> planned.port().name())
            .filter(port -> port.service().name().equals("web"))
            .findFirst()
            .orElseThrow();
    var counting =
        new ObservedLocality(null, Map.of(webPort, new ObservedLocality.Counts(5, 2, 1, 0)));

    var live = live(null, 10, counting);

    assertThat(LiveExplainReport.text(live))
        .contains(
            "  observed:  5 local, 2 same zone, 1 other zones, 0 zone unknown (63% kept on the"
                + " node, 88% in the zone) since the proxy began counting it\n")
        .contains("  observed:  not counted per Service (annotate the Service")
        .contains("observed locality:  counted");
    var rows = json(live).path("servicePorts");
    var web = rows.get(0).path("service").asText().equals("shop/web") ? rows.get(0) : rows.get(1);
    assertThat(web.path("observedLocality").toString())
        .isEqualTo("{\"local\":5,\"sameZone\":2,\"otherZones\":1,\"unknown\":0}");
    assertThat(web.path("observedLocality").path("local").asLong()).isEqualTo(5);
    assertThat(web.path("observedLocality").path("otherZones").asLong()).isEqualTo(1);
    assertThat(web.path("observedLocality").path("unknown").asLong()).isZero();
    assertThat(json(live).path("observedLocality").path("counted").asBoolean()).isTrue();
  }

  @Test
  void aFailedSyncKeepsWhatWasLoadedBeforeAndASuccessClearsFailingButKeepsTheLastError() {
    var loaded = SyncState.notSynced(IpFamily.IPV4).succeeded(true, FULL, 40, 2);
    var failed = loaded.failed("  boom  ", FAILED);

    assertThat(failed.failing()).isTrue();
    assertThat(failed.rulesLoaded()).isEqualTo(40);
    assertThat(failed.lastFullSync()).isEqualTo(FULL);
    assertThat(failed.lastError()).isEqualTo(new SyncState.SyncError("boom", FAILED));

    var recovered = failed.succeeded(true, NOW, 41, 3);
    assertThat(recovered.failing()).isFalse();
    assertThat(recovered.lastFullSync()).isEqualTo(NOW);
    assertThat(recovered.lastError().at()).isEqualTo(FAILED);
    assertThat(recovered.waiting("pod CIDRs").waitingFor()).isEqualTo("pod CIDRs");
    assertThat(recovered.waiting("pod CIDRs").succeeded(false, NOW, 1, 3).waitingFor()).isNull();
  }

  @Test
  void anAnnotatedPortTheCapLeavesOutIsNotToldToAddTheAnnotationItHas() {
    var annotated = ClusterObjects.service("shop", "web", "10.96.0.20");
    annotated
        .getMetadata()
        .setAnnotations(java.util.Map.of("proxima.dev/observe-locality", "true"));
    var plan =
        NodePlanner.plan(
            IpFamily.IPV4,
            "node-a",
            ClusterObjects.node("node-a", "zone-a"),
            null,
            List.of(annotated),
            List.of(ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5")),
            AddressPolicy.ofNode(ClusterObjects.node("node-a", "zone-a")),
            ZoneDemand.unknown());
    // The cap left it out.
    var countingOthers = new ObservedLocality(null, Map.of());

    var text =
        LiveExplainReport.text(
            LiveExplain.of(
                "node-a",
                NOW,
                true,
                new LiveExplain.PendingChanges(0, 0),
                sync(),
                List.of(plan),
                null,
                10,
                countingOthers));

    assertThat(text)
        .contains("not counted per Service: --observe-locality-max-series is reached")
        .doesNotContain("annotate the Service");
  }
}
