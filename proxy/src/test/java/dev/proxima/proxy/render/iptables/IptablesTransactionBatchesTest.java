package dev.proxima.proxy.render.iptables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.RandomPorts;
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A full sync in several {@code iptables-restore} buffers: each is bounded, none leaves a jump to a
 * missing chain ({@link FakeIptablesRestore} refuses such a commit), between two of them every
 * Service port is whole, old or new, and the last leaves the chains one buffer would.
 */
class IptablesTransactionBatchesTest {
  private static final FamilySettings V4 = FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));
  private static final Pattern TARGET = Pattern.compile("-j (PROXIMA-[A-Z0-9-]+)");
  private static final Set<String> DISPATCH =
      Set.of("SERVICES", "EXTERNAL-SERVICES", "NODEPORTS", "FIREWALL");

  private static List<ServicePortRules> ports(long seed, int count) {
    var random = new Random(seed);
    var ports = new ArrayList<ServicePortRules>();
    for (int i = 0; i < count; i++) {
      ports.add(RandomPorts.port(random, i, IpFamily.IPV4));
    }
    return ports;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void aColdFullSyncInBatchesBuildsWhatOneBufferBuildsAndNeverExposesAHalfBuiltService(long seed) {
    var ports = ports(seed, 60);
    var single = loaded(ports);
    var kernel = new FakeIptablesRestore();

    var batches = new IptablesAssembler(V4).replaceAllInBatches(ports, kernel.listingForSync(), 60);

    assertThat(batches).hasSizeGreaterThan(5);
    var wanted = views(single, ports);
    for (var batch : batches) {
      kernel.apply(batch);
      views(kernel, ports)
          .forEach(
              (name, view) ->
                  assertThat(view)
                      .as("%s after%n%s", name, batch)
                      .isIn(Map.of(), wanted.get(name)));
    }
    assertThat(kernel.listing()).isEqualTo(single.listing());
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void aFullSyncOverLoadedChainsSwitchesEachServiceWholeAndEndsAsAFreshLoad(long seed) {
    var before = ports(seed, 60);
    // 10 gone, the rest rendered anew from another seed (changed or not), 10 new.
    var after = new ArrayList<>(ports(seed + 100, 70).subList(10, 70));
    var kernel = loaded(before);
    var oldViews = views(kernel, before);
    var newViews = views(loaded(after), after);

    var batches = new IptablesAssembler(V4).replaceAllInBatches(after, kernel.listingForSync(), 60);

    assertThat(batches).hasSizeGreaterThan(5);
    int halfway = 0;
    for (var batch : batches) {
      kernel.apply(batch);
      var now = views(kernel, before);
      now.putAll(views(kernel, after));
      boolean someOld = false;
      boolean someNew = false;
      for (var entry : now.entrySet()) {
        var old = oldViews.getOrDefault(entry.getKey(), Map.of());
        var fresh = newViews.getOrDefault(entry.getKey(), Map.of());
        someOld |= entry.getValue().equals(old) && !old.equals(fresh);
        someNew |= entry.getValue().equals(fresh) && !old.equals(fresh);
      }
      halfway += someOld && someNew ? 1 : 0;
      now.forEach(
          (name, view) ->
              assertThat(view)
                  .as("%s after%n%s", name, batch)
                  .isIn(
                      oldViews.getOrDefault(name, Map.of()),
                      newViews.getOrDefault(name, Map.of())));
    }
    assertThat(halfway).as("buffers after which some ports are old and some new").isGreaterThan(2);
    assertThat(kernel.listing()).isEqualTo(loaded(after).listing());
  }

  @Test
  void everyBufferStaysWithinItsBudgetUnlessOneServicePortIsLarger() {
    var batches = fullSyncOverLoadedChains(5, 80, 100);

    // The largest of these ports has a few dozen lines; a buffer closes before it would pass.
    for (var batch : batches) {
      long lines = batch.lines().filter(l -> !l.startsWith("*") && !l.equals("COMMIT")).count();
      assertThat(lines).as(batch).isLessThanOrEqualTo(100);
    }
  }

  @Test
  void aRulesetWithinTheBudgetLoadsAsTheSingleBuffer() {
    var ports = ports(7, 10);
    var kernel = new FakeIptablesRestore();

    assertThat(new IptablesAssembler(V4).replaceAllInBatches(ports, kernel.listingForSync(), 6000))
        .containsExactly(new IptablesAssembler(V4).replaceAll(ports, Map.of()));
  }

  @Test
  void withoutTheKernelsRulesTheFullSyncIsOneBuffer() {
    var ports = ports(8, 60);
    var kernel = loaded(ports);

    assertThat(
            new IptablesAssembler(V4)
                .replaceAllInBatches(ports, IptablesListing.ofChains(kernel.chains()), 10))
        .hasSize(1);
  }

  @Test
  void noBufferDeclaresADispatchChainTheKernelHasOrACounterChainItHas() {
    var batches = fullSyncOverLoadedChains(9, 40, 50);

    assertThat(batches)
        .noneMatch(
            batch ->
                batch.contains(":PROXIMA-SERVICES ")
                    || batch.contains(":PROXIMA-NODEPORTS ")
                    || batch.contains(":PROXIMA-EXTERNAL-SERVICES ")
                    || batch.contains(":PROXIMA-FIREWALL ")
                    || batch.contains(":PROXIMA-COUNT-"));
  }

  /**
   * Offline state files are not validated by an API server, so a name may hold spaces and words
   * that read as rule syntax or as another Service port's name. The full sync still finds which
   * port each rule in the kernel belongs to, so neither port is ever without its dispatch rule nor
   * holds two.
   */
  @Test
  void aNameThatStartsWithAnotherPortsNameAndReadsAsRuleSyntaxStillOwnsOnlyItsOwnRules() {
    var plain =
        ServicePortFixtures.service("ns/a", "10.96.0.1", 80)
            .portName("x")
            .cluster(ServicePortFixtures.remote("10.180.0.1", 80));
    var tricky =
        ServicePortFixtures.service("ns/a:x -A PROXIMA-SERVICES -j ACCEPT", "10.96.0.2", 80)
            .cluster(ServicePortFixtures.remote("10.180.0.2", 80));
    var moved =
        ServicePortFixtures.service("ns/a:x -A PROXIMA-SERVICES -j ACCEPT", "10.96.0.2", 80)
            .cluster(ServicePortFixtures.remote("10.180.0.3", 80));
    var kernel = loaded(List.of(plain, tricky));

    var batches =
        new IptablesAssembler(V4)
            .replaceAllInBatches(List.of(plain, moved), kernel.listingForSync(), 1);

    assertThat(batches).hasSizeGreaterThan(2);
    for (var batch : batches) {
      kernel.apply(batch);
      var services = kernel.listing().get("nat PROXIMA-SERVICES");
      assertThat(services.stream().filter(rule -> rule.contains("-d 10.96.0.1 ")))
          .as("the plain port's ClusterIP rules after%n%s", batch)
          .hasSize(1);
      assertThat(services.stream().filter(rule -> rule.contains("-d 10.96.0.2 ")))
          .as("the tricky port's ClusterIP rules after%n%s", batch)
          .hasSize(1);
    }
    assertThat(kernel.listing()).isEqualTo(loaded(List.of(plain, moved)).listing());
  }

  /** The buffers of a full sync of {@code count} ports over the chains of as many others. */
  private static List<String> fullSyncOverLoadedChains(long seed, int count, int lineBudget) {
    var kernel = loaded(ports(seed, count));
    return new IptablesAssembler(V4)
        .replaceAllInBatches(ports(seed + 1, count), kernel.listingForSync(), lineBudget);
  }

  private static FakeIptablesRestore loaded(List<ServicePortRules> ports) {
    var kernel = new FakeIptablesRestore();
    kernel.apply(new IptablesAssembler(V4).replaceAll(ports, Map.of()));
    return kernel;
  }

  /**
   * What each Service port has in the kernel: its rules in the dispatch chains (by the name its
   * comments start with) and every chain of its own they lead to, with their rules.
   */
  private static Map<String, Map<String, List<String>>> views(
      FakeIptablesRestore kernel, List<ServicePortRules> ports) {
    var listing = kernel.listing();
    var views = new TreeMap<String, Map<String, List<String>>>();
    for (ServicePortName name : ports.stream().map(p -> p.port().name()).toList()) {
      var text = IptablesRestoreText.commentText(name.toString());
      var view = new LinkedHashMap<String, List<String>>();
      var todo = new ArrayList<String>();
      listing.forEach(
          (chain, rules) -> {
            if (DISPATCH.contains(chain.substring(chain.indexOf(" PROXIMA-") + 9))) {
              for (String rule : rules) {
                String comment = IptablesListing.comment(rule);
                if (comment != null && (comment.equals(text) || comment.startsWith(text + " "))) {
                  view.computeIfAbsent(chain, c -> new ArrayList<>()).add(rule);
                  targets(rule, todo);
                }
              }
            }
          });
      while (!todo.isEmpty()) {
        String chain = "nat " + todo.remove(todo.size() - 1);
        if (!view.containsKey(chain) && listing.containsKey(chain) && ownChain(chain)) {
          view.put(chain, listing.get(chain));
          listing.get(chain).forEach(rule -> targets(rule, todo));
        }
      }
      views.put(name.toString(), view);
    }
    return views;
  }

  private static boolean ownChain(String chain) {
    return chain.matches("nat PROXIMA-(SVC|SVL|EXT|FW|SEP)-.*");
  }

  private static void targets(String rule, List<String> todo) {
    var matcher = TARGET.matcher(rule);
    while (matcher.find()) {
      todo.add(matcher.group(1));
    }
  }
}
