package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.testing.ServicePortFixtures.local;
import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftNames;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A full sync in several transactions: each is bounded, none names an object not created yet, and
 * between two of them every Service port is whole, old or new, never half-switched; the last one
 * leaves the table a single full load would.
 */
class TransactionBatchesTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  /** Maps whose elements send a Service's traffic somewhere: its switch. */
  private static final List<String> SWITCH_MAPS =
      List.of(
          NftNames.SERVICE_IPS,
          NftNames.SERVICE_NODEPORTS,
          NftNames.CLUSTER_DISPATCH,
          NftNames.LOCAL_DISPATCH,
          NftNames.NODEPORT_CLUSTER_DISPATCH,
          NftNames.NODEPORT_LOCAL_DISPATCH,
          NftNames.NO_ENDPOINT_SERVICES,
          NftNames.NO_ENDPOINT_NODEPORTS);

  private static final Pattern TARGET = Pattern.compile("(?:goto|jump) ([a-z0-9-]+)");

  private final MutableClock clock = new MutableClock();

  /** Services of every shape the renderer knows, {@code endpoints} each (plus a variant). */
  static List<ServicePortRules> shapes(int count, int endpoints, int generation) {
    var ports = new ArrayList<ServicePortRules>();
    for (int i = 0; i < count; i++) {
      var eps = new ArrayList<Endpoint>();
      int n = endpoints + (i + generation) % 3;
      for (int e = 0; e < n; e++) {
        eps.add(remote("10.180." + (i % 200) + "." + (e + 10 + generation), 8080));
      }
      var name = "ns" + (i % 7) + "/svc" + i;
      var clusterIp = "10.96." + (i / 200) + "." + (i % 200 + 1);
      var rules =
          switch (i % 5) {
            case 0 -> service(name, clusterIp, 80).cluster(eps.toArray(Endpoint[]::new));
            case 1 ->
                service(name, clusterIp, 80)
                    .sticky(Duration.ofSeconds(30))
                    .cluster(eps.toArray(Endpoint[]::new));
            case 2 ->
                service(name, clusterIp, 80)
                    .nodePort(30000 + i)
                    .cluster(eps.toArray(Endpoint[]::new));
            case 3 ->
                service(name, clusterIp, 443)
                    .loadBalancerIps("192.0." + (2 + i / 250) + "." + (i % 250 + 1))
                    .sourceRanges("198.51.100.0/24")
                    .nodePort(31000 + i)
                    .externalLocal()
                    .rules(eps, List.of(local("10.181.0." + (i % 250 + 1), 8080)), true);
            default -> service(name, clusterIp, 53).rules(List.of(), List.of(), false);
          };
      ports.add(rules);
    }
    return ports;
  }

  @Test
  void aColdFullSyncInBatchesBuildsWhatOneTransactionBuildsAndNeverExposesAHalfBuiltService() {
    var ports = shapes(60, 3, 0);
    var single = new FakeNft();
    single.apply(new RulesetAssembler(CONFIG, clock).replaceAll(ports));

    var assembler = new RulesetAssembler(CONFIG, clock);
    var batches = assembler.replaceAllInBatches(ports, 80);

    assertThat(batches).hasSizeGreaterThan(5);
    var kernel = new FakeNft();
    var wholePorts = wholeSwitches(ports);
    for (var batch : batches) {
      // FakeNft refuses a transaction that leaves a reference to a missing chain or set.
      kernel.apply(batch);
      assertEveryPortWholeOrAbsent(kernel, wholePorts, Map.of());
      assertEverySwitchLeadsToALoadedChain(kernel);
    }
    assertThat(kernel.list()).isEqualTo(single.list());
  }

  @Test
  void eachColdBatchStaysWithinTheBudgetUnlessOnePortIsLarger() {
    var ports = shapes(60, 3, 0);
    var batches = new RulesetAssembler(CONFIG, clock).replaceAllInBatches(ports, 80);

    // The first creates the fixed table; every later one holds whole ports up to the budget,
    // counted in statements and elements (the largest port here is well under it).
    for (var batch : batches.subList(1, batches.size())) {
      long statements =
          batch.lines().filter(line -> !line.equals("}") && !line.endsWith(" {")).count();
      assertThat(statements).isLessThanOrEqualTo(80 + 20);
    }
  }

  @Test
  void aSmallTableLoadsInOneTransactionThatBuildsWhatTheFullScriptBuilds() {
    var ports = shapes(3, 2, 0);
    var batches = new RulesetAssembler(CONFIG, clock).replaceAllInBatches(ports, 15_000);
    var kernel = new FakeNft();
    batches.forEach(kernel::apply);
    var single = new FakeNft();
    single.apply(new RulesetAssembler(CONFIG, clock).replaceAll(ports));

    assertThat(batches).hasSize(1);
    assertThat(kernel.list()).isEqualTo(single.list());
  }

  @Test
  void aFullSyncOverALoadedTableBuildsBesideItSwitchesInOneSmallStepAndKeepsAffinityEntries() {
    var sticky =
        service("keep/sticky", "10.97.0.1", 80)
            .sticky(Duration.ofSeconds(30))
            .cluster(remote("10.182.0.1", 8080));
    var before = new ArrayList<>(shapes(60, 3, 0));
    before.add(sticky);
    var after = new ArrayList<>(shapes(60, 3, 1).subList(10, 60)); // 10 gone, the rest changed
    after.add(sticky);
    var kernel = new FakeNft();
    new RulesetAssembler(CONFIG, clock).replaceAllInBatches(before, 80).forEach(kernel::apply);
    var alone = new FakeNft();
    alone.apply(new RulesetAssembler(CONFIG, clock).replaceAll(List.of(sticky)));
    var affinitySet =
        alone.objects().keySet().stream()
            .filter(name -> name.startsWith("set affinity-"))
            .findFirst()
            .orElseThrow()
            .substring("set ".length());
    kernel.apply("add element ip proxima " + affinitySet + " { 10.1.2.3 }\n");
    var running = kernel.list();
    var listed = kernel.kernelTable();

    var next = new RulesetAssembler(CONFIG, clock, listed.freeGeneration());
    var batches = next.replaceAllInBatches(after, 80);
    assertThat(batches).hasSizeGreaterThan(5);
    for (var batch : batches.subList(0, batches.size() - 1)) {
      kernel.apply(batch);
      assertThat(kernel.rulesOf(NftNames.NAT_PREROUTING))
          .as("until the switch, packets meet the rules that were running")
          .containsExactly("jump " + NftNames.SERVICES);
    }
    var switchTo = batches.get(batches.size() - 1);
    assertThat(switchTo.lines().count()).as("the switch is small").isLessThan(40);
    kernel.apply(switchTo);
    assertThat(kernel.rulesOf(NftNames.NAT_PREROUTING)).containsExactly("jump services-g1");
    var deleting = next.deletingEarlier(listed, java.util.Set.of(), Integer.MAX_VALUE);
    kernel.apply(FakeNft.text(deleting.first()));
    kernel.apply(FakeNft.text(deleting.chains()));

    var fresh = new FakeNft();
    new RulesetAssembler(CONFIG, clock, 1).replaceAllInBatches(after, 80).forEach(fresh::apply);
    assertThat(kernel.elementsOf(affinitySet)).as("the clients' endpoints").containsKey("10.1.2.3");
    kernel.apply("delete element ip proxima " + affinitySet + " { 10.1.2.3 }\n");
    assertThat(kernel.list()).isEqualTo(fresh.list()).isNotEqualTo(running);
  }

  /** Each port's switch elements (by map), from a table of that port alone. */
  private Map<ServicePortName, Map<String, Map<String, String>>> wholeSwitches(
      List<ServicePortRules> ports) {
    var out = new HashMap<ServicePortName, Map<String, Map<String, String>>>();
    for (var port : ports) {
      var alone = new FakeNft();
      alone.apply(new RulesetAssembler(CONFIG, clock).replaceAll(List.of(port)));
      var switches = new HashMap<String, Map<String, String>>();
      for (var map : SWITCH_MAPS) {
        switches.put(map, alone.elementsOf(map));
      }
      out.put(port.port().name(), switches);
    }
    return out;
  }

  /**
   * Every port's switch elements are in the kernel all as the new port has them, or all as the old
   * one had them, or none at all (a new port not loaded yet, an old one gone).
   */
  private static void assertEveryPortWholeOrAbsent(
      FakeNft kernel,
      Map<ServicePortName, Map<String, Map<String, String>>> newPorts,
      Map<ServicePortName, Map<String, Map<String, String>>> oldPorts) {
    var names = new java.util.HashSet<>(newPorts.keySet());
    names.addAll(oldPorts.keySet());
    for (var name : names) {
      var seen = new HashMap<String, Map<String, String>>();
      boolean anything = false;
      for (var map : SWITCH_MAPS) {
        var inKernel = kernel.elementsOf(map);
        var wanted = new HashMap<String, String>();
        for (var version : List.of(newPorts, oldPorts)) {
          var of = version.get(name);
          if (of != null) {
            of.get(map)
                .forEach(
                    (key, element) -> {
                      if (inKernel.containsKey(key)) {
                        wanted.put(key, inKernel.get(key));
                      }
                    });
          }
        }
        anything |= !wanted.isEmpty();
        seen.put(map, wanted);
      }
      if (!anything) {
        continue;
      }
      boolean whole =
          (newPorts.containsKey(name) && seen.equals(newPorts.get(name)))
              || (oldPorts.containsKey(name) && seen.equals(oldPorts.get(name)));
      assertThat(whole).as(name + " is half switched: " + seen).isTrue();
    }
  }

  /** A switch element never leads to a chain that is missing or empty. */
  private static void assertEverySwitchLeadsToALoadedChain(FakeNft kernel) {
    for (var map : SWITCH_MAPS) {
      for (var element : kernel.elementsOf(map).values()) {
        var target = TARGET.matcher(element);
        if (target.find()) {
          assertThat(kernel.rulesOf(target.group(1)))
              .as(map + " element " + element + " leads to a loaded chain")
              .isNotNull()
              .isNotEmpty();
        }
      }
    }
  }

  private static String withoutEmptyChains(FakeNft kernel) {
    var out = new StringBuilder();
    kernel
        .objects()
        .forEach(
            (name, body) -> {
              if (!(name.startsWith("chain ") && body.endsWith("\n[]"))) {
                out.append(name).append(' ').append(body).append('\n');
              }
            });
    return out.toString();
  }
}
