package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NftScriptDiffTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  @TempDir Path directory;

  private static String render(ServicePortRules... rules) {
    return NftRenderer.render(CONFIG, List.of(rules));
  }

  private static String delta(String before, String after) {
    return NftScriptDiff.delta(NftScriptDiff.Parsed.of(before), NftScriptDiff.Parsed.of(after))
        .orElseThrow();
  }

  private static final ServicePortRules WEB_TWO =
      service("shop/web", "10.96.0.10", 80)
          .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80));
  private static final ServicePortRules API =
      service("shop/api", "10.96.0.11", 80)
          .cluster(remote("10.180.1.4", 80), remote("10.180.1.5", 80));

  @Test
  void nothingChangedMeansAnEmptyTransaction() {
    assertThat(delta(render(WEB_TWO, API), render(WEB_TWO, API))).isEmpty();
  }

  @Test
  void anEndpointSwapTouchesOnlyThatServicesElements() {
    var after =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.6", 80));

    var delta = delta(render(WEB_TWO, API), render(after, API));

    assertThat(delta)
        .contains("delete element ip proxima cluster-endpoints {\n\t10.96.0.10 . tcp . 80 . 1\n}")
        .contains(
            "add element ip proxima cluster-endpoints {\n\t10.96.0.10 . tcp . 80 . 1 : 10.180.0.6 . 80\n}")
        .doesNotContain("10.96.0.11")
        .doesNotContain("add chain")
        .doesNotContain("flush");
  }

  @Test
  void anEndpointCountAnotherServiceAlreadyUsesStaysPartial() {
    var one = service("shop/one", "10.96.0.20", 80).cluster(remote("10.180.9.4", 80));
    var three =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80), remote("10.180.0.6", 80));
    var otherThree =
        service("shop/api", "10.96.0.11", 80)
            .cluster(remote("10.180.1.4", 80), remote("10.180.1.5", 80), remote("10.180.1.6", 80));

    var delta = delta(render(one, otherThree, WEB_TWO), render(one, otherThree, three));

    assertThat(delta)
        .doesNotContain("add chain")
        .contains("goto lb-3")
        .contains("10.96.0.10 . tcp . 80 . 2 : 10.180.0.6 . 80");
  }

  @Test
  void aNewEndpointCountNeedsAFullReplacementBecauseOfAnNftBug() {
    var three =
        service("shop/web", "10.96.0.10", 80)
            .cluster(remote("10.180.0.4", 80), remote("10.180.0.5", 80), remote("10.180.0.6", 80));

    var delta =
        NftScriptDiff.delta(
            NftScriptDiff.Parsed.of(render(WEB_TWO, API)),
            NftScriptDiff.Parsed.of(render(three, API)));

    assertThat(delta).isEmpty();
  }

  @Test
  void aChangedSetDeclarationNeedsAFullReplacement() {
    var before = NftScriptDiff.Parsed.of(render(WEB_TWO));
    var after =
        NftScriptDiff.Parsed.of(
            render(WEB_TWO).replace("type ipv4_addr ;", "type ipv4_addr ; flags interval ;"));

    assertThat(NftScriptDiff.delta(before, after)).isEmpty();
  }

  @Test
  void aRemovedServiceLosesItsElementsByKey() {
    var delta = delta(render(WEB_TWO, API), render(WEB_TWO));

    assertThat(delta)
        .contains("delete element ip proxima service-ips {\n\t10.96.0.11 . tcp . 80\n}")
        .doesNotContain("add element");
  }

  @Test
  void keysDropValuesAndComments() {
    assertThat(NftScriptDiff.key("10.96.0.10 . tcp . 80 comment \"shop/web\" : goto lb-2", true))
        .isEqualTo("10.96.0.10 . tcp . 80");
    assertThat(NftScriptDiff.key("fd00::1 . tcp . 80 : fd00::5 . 8080", true))
        .isEqualTo("fd00::1 . tcp . 80");
    assertThat(NftScriptDiff.key("10.180.0.4 . 10.180.0.4", false))
        .isEqualTo("10.180.0.4 . 10.180.0.4");
  }

  @Test
  void aKeyLosesEveryCommentButKeepsAnUnclosedQuote() {
    assertThat(NftScriptDiff.key("a comment \"x\" . b comment \"y\"", false)).isEqualTo("a . b");
    assertThat(NftScriptDiff.key("a comment \"x", false)).isEqualTo("a comment \"x");
  }

  /** Applying a delta must leave the kernel exactly as loading the target render from scratch. */
  @Test
  void aDeltaOnTheKernelEqualsAFreshLoadOfTheTarget() throws Exception {
    assumeTrue(
        HostTools.onPath("nft").isPresent() && HostTools.onPath("ip").isPresent(),
        "needs nft and ip");
    assumeTrue(HostTools.isRoot(), "needs root for network namespaces");
    var sticky = service("shop/sticky", "10.96.0.12", 80).sticky(Duration.ofSeconds(60));
    var before =
        render(
            WEB_TWO,
            API,
            sticky.cluster(remote("10.180.2.4", 80), remote("10.180.2.5", 80)),
            service("shop/lb", "10.96.0.13", 80)
                .loadBalancerIps("192.0.2.10")
                .sourceRanges("203.0.113.0/24")
                .cluster(remote("10.180.3.4", 80)));
    var after =
        render(
            service("shop/web", "10.96.0.10", 80)
                .cluster(remote("10.180.0.4", 80), remote("10.180.0.7", 80)),
            sticky.cluster(remote("10.180.2.4", 80)),
            service("shop/lb", "10.96.0.13", 80)
                .loadBalancerIps("192.0.2.10")
                .sourceRanges("198.51.100.0/24")
                .cluster(remote("10.180.3.4", 80)),
            service("shop/new", "10.96.0.14", 53)
                .protocol(dev.proxima.proxy.model.Protocol.UDP)
                .cluster());
    var suffix = UUID.randomUUID().toString().substring(0, 6);
    var patched = "pxd-" + suffix;
    var fresh = "pxf-" + suffix;
    try {
      HostTools.run(directory, "ip", "netns", "add", patched).assertSucceeded();
      HostTools.run(directory, "ip", "netns", "add", fresh).assertSucceeded();
      load(patched, before);
      load(patched, delta(before, after));
      load(fresh, after);

      var patchedObjects = NftTool.objects(directory, patched);
      var freshObjects = NftTool.objects(directory, fresh);
      assertThat(freshObjects.get("map cluster-endpoints"))
          .as("the comparison sees elements")
          .contains("10.96.0.10 . tcp . 80 . 1 : 10.180.0.7 . 80");
      assertThat(freshObjects.get("set hairpins")).contains("10.180.0.7 . 10.180.0.7");
      freshObjects.forEach(
          (object, content) ->
              assertThat(patchedObjects.get(object)).as(object).isEqualTo(content));
      patchedObjects.forEach(
          (object, content) -> {
            if (!freshObjects.containsKey(object)) {
              // Left for the next full sync: unused chains are flushed, unused affinity sets idle.
              assertThat(object.startsWith("set affinity-") || content.isEmpty())
                  .as("stale %s: %s", object, content)
                  .isTrue();
            }
          });
    } finally {
      HostTools.run(directory, "ip", "netns", "del", patched);
      HostTools.run(directory, "ip", "netns", "del", fresh);
    }
  }

  private void load(String namespace, String script) throws Exception {
    var file = Files.createTempFile(directory, "rules", ".nft");
    Files.writeString(file, script);
    HostTools.run(directory, "ip", "netns", "exec", namespace, "nft", "-f", file.toString())
        .assertSucceeded();
  }
}
