package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way the nft rules reach the kernel ends in the same table: the plain renderer's script, the
 * assembler's full script, an in-place full sync over an older table, and a fresh table plus any
 * sequence of partial transactions. Checked on {@link FakeNft} for random sequences of changes
 * (seeded, so a failure repeats), which real-kernel tests could only afford for a few.
 */
class RenderPathEquivalenceTest {
  private static final FamilySettings V4 = FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  private static final FamilySettings V6 =
      FamilySettings.of(IpFamily.IPV6, List.of("fd00:10::/64"));
  private static final int PORTS = 14;
  private static final int STEPS = 60;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void partialAndInPlaceSyncsLeaveTheTableAFreshFullRenderWouldLoad(long seed) {
    var random = new Random(seed);
    var settings = seed % 4 == 0 ? V6 : V4;
    var current = new TreeMap<ServicePortName, ServicePortRules>();
    for (int i = 0; i < PORTS / 2; i++) {
      var rules = randomPort(random, i, settings.family());
      current.put(rules.port().name(), rules);
    }
    var assembler = new RulesetAssembler(settings);
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.copyOf(current.values())));
    assertSameTable(kernel, settings, current, "initial");

    int partial = 0;
    for (int step = 0; step < STEPS; step++) {
      var changes = new HashMap<ServicePortName, ServicePortRules>();
      int count = 1 + random.nextInt(3);
      for (int c = 0; c < count; c++) {
        int index = random.nextInt(PORTS);
        var rules = randomPort(random, index, settings.family());
        var name = rules.port().name();
        boolean remove = current.containsKey(name) && random.nextInt(4) == 0;
        changes.put(name, remove ? null : rules);
      }
      changes.forEach(
          (name, rules) -> {
            if (rules == null) {
              current.remove(name);
            } else {
              current.put(name, rules);
            }
          });
      var transaction = assembler.update(changes);
      if (transaction.isPresent()) {
        partial++;
        kernel.apply(transaction.get());
      } else {
        kernel.apply(assembler.replaceAll(List.copyOf(current.values()), kernel.kernelTable()));
      }
      if (random.nextInt(10) == 0) {
        // A periodic full sync, in place over whatever the partial syncs left.
        kernel.apply(assembler.replaceAll(List.copyOf(current.values()), kernel.kernelTable()));
      }
      assertSameTable(kernel, settings, current, "seed " + seed + " step " + step);
    }
    assertThat(partial).as("most steps are partial syncs").isGreaterThan(STEPS / 2);
  }

  @Test
  void thePlainRendererAndTheAssemblerWriteTheSameTable() {
    var random = new Random(42);
    for (var settings : List.of(V4, V6)) {
      var ports = new ArrayList<ServicePortRules>();
      for (int i = 0; i < PORTS; i++) {
        ports.add(randomPort(random, i, settings.family()));
      }
      var plain = new FakeNft();
      plain.apply(NftRenderer.render(settings, ports));
      var assembled = new FakeNft();
      assembled.apply(new RulesetAssembler(settings).replaceAll(ports));

      assertThat(assembled.list()).isEqualTo(plain.list());
    }
  }

  @Test
  void theFakeRefusesWhatNftRefusesAndRollsBack() {
    var kernel = new FakeNft();
    var script = new RulesetAssembler(V4).replaceAll(List.of());
    kernel.apply(script);
    var before = kernel.list();

    assertThatThrownBy(() -> kernel.apply("add rule ip proxima services goto nowhere\n"))
        .hasMessageContaining("nowhere");
    assertThatThrownBy(
            () ->
                kernel.apply(
                    "add element ip proxima cluster-ips { 10.96.0.1 }\n"
                        + "delete element ip proxima cluster-ips { 10.96.0.2 }\n"))
        .hasMessageContaining("10.96.0.2");
    assertThatThrownBy(() -> kernel.apply("delete chain ip proxima masquerading\n"))
        .hasMessageContaining("has rules");
    assertThat(kernel.list()).isEqualTo(before);
  }

  /**
   * The fake holds everything a fresh table of {@code current} holds, with the same content; what
   * else it holds (chains and sets partial syncs stopped using) nothing the fresh table has refers
   * to.
   */
  private static void assertSameTable(
      FakeNft kernel,
      FamilySettings settings,
      Map<ServicePortName, ServicePortRules> current,
      String when) {
    var fresh = new FakeNft();
    fresh.apply(new RulesetAssembler(settings).replaceAll(List.copyOf(current.values())));
    var wanted = fresh.objects();
    var held = kernel.objects();
    wanted.forEach(
        (object, content) ->
            assertThat(held.get(object)).as(when + ": " + object).isEqualTo(content));
    var referenced = String.join("\n", wanted.values());
    held.keySet().stream()
        .filter(object -> !wanted.containsKey(object))
        .forEach(
            object -> {
              var name = object.substring(object.indexOf(' ') + 1);
              var reference =
                  Pattern.compile(
                      (object.startsWith("chain ") ? "(goto|jump) " : "@")
                          + Pattern.quote(name)
                          + "\\b");
              assertThat(reference.matcher(referenced).find())
                  .as(when + ": leftover " + object + " is still referenced")
                  .isFalse();
            });
  }

  /**
   * A port of Service {@code index} with random features. Endpoints come from a small pool, so
   * ports share hairpins and endpoint counts; addresses and NodePorts are the port's own, as the
   * planner's AddressOwners guarantees before anything reaches the renderer (a key two ports claim
   * is not rendered the same way by partial and full syncs: see the report of issue 15).
   */
  private static ServicePortRules randomPort(Random random, int index, IpFamily family) {
    boolean v6 = family == IpFamily.IPV6;
    var svc =
        service(
                "ns" + index % 3 + "/svc" + index,
                v6 ? "fd00:96::" + Integer.toHexString(index + 1) : "10.96.0." + (index + 1),
                random.nextBoolean() ? 80 : 443)
            .protocol(random.nextInt(4) == 0 ? Protocol.UDP : Protocol.TCP);
    if (random.nextInt(3) == 0) {
      svc.nodePort(30000 + index);
    }
    if (random.nextInt(4) == 0) {
      svc.externalIps(v6 ? "2001:db8::" + (index + 1) : "192.0.2." + (index + 1));
    }
    if (random.nextInt(4) == 0) {
      svc.loadBalancerIps(v6 ? "2001:db8:1::" + (index + 1) : "203.0.113." + (index + 1));
      if (random.nextBoolean()) {
        svc.sourceRanges(
            random.nextBoolean() ? (v6 ? "2001:db8:9::/48" : "198.51.100.0/24") : "not-a-cidr");
      }
    }
    if (random.nextInt(5) == 0) {
      svc.sticky(Duration.ofSeconds(random.nextBoolean() ? 60 : 120));
    }
    if (random.nextInt(4) == 0) {
      svc.externalLocal();
    }
    if (random.nextInt(6) == 0) {
      svc.internalLocal();
    }
    var cluster = new ArrayList<Endpoint>();
    var localList = new ArrayList<Endpoint>();
    int endpoints = random.nextInt(5);
    for (int e = 0; e < endpoints; e++) {
      var ip = v6 ? "fd00:10::" + (1 + random.nextInt(8)) : "10.180.0." + (1 + random.nextInt(8));
      var here = random.nextInt(3) == 0;
      var endpoint = here ? local(ip, 8080) : remote(ip, 8080);
      if (cluster.stream().noneMatch(other -> other.ip().equals(ip))) {
        cluster.add(endpoint);
        if (here) {
          localList.add(endpoint);
        }
      }
    }
    boolean any = !cluster.isEmpty() || random.nextInt(5) == 0;
    return svc.rules(cluster, localList, any);
  }
}
