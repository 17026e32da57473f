package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.FakeNft;
import dev.proxima.proxy.testing.RandomPorts;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way the nft rules reach the kernel ends in the same table: the assembler's full script, a
 * full sync beside an older table, and a fresh table plus any sequence of partial transactions.
 * Checked on {@link FakeNft} for random sequences of changes (seeded, so a failure repeats), which
 * real-kernel tests could only afford for a few.
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
    var current = RandomPorts.initial(random, PORTS / 2, settings.family());
    var assembler = new RulesetAssembler(settings);
    var kernel = new FakeNft();
    kernel.apply(assembler.replaceAll(List.copyOf(current.values())));
    assertSameTable(kernel, settings, 0, current, "initial");

    int partial = 0;
    for (int step = 0; step < STEPS; step++) {
      var changes = RandomPorts.change(random, PORTS, settings.family(), current);
      var transaction = assembler.update(changes);
      if (transaction.isPresent()) {
        partial++;
        kernel.apply(transaction.get());
      } else {
        assembler = fullSync(kernel, settings, current);
      }
      if (random.nextInt(10) == 0) {
        // A periodic full sync, beside whatever the partial syncs left.
        assembler = fullSync(kernel, settings, current);
      }
      assertSameTable(
          kernel, settings, assembler.generation(), current, "seed " + seed + " step " + step);
    }
    assertThat(partial).as("most steps are partial syncs").isGreaterThan(STEPS / 2);
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
  private static RulesetAssembler fullSync(
      FakeNft kernel, FamilySettings settings, Map<ServicePortName, ServicePortRules> current) {
    return FullSyncs.over(
        kernel, settings, java.time.Clock.systemUTC(), List.copyOf(current.values()), 40);
  }

  private static void assertSameTable(
      FakeNft kernel,
      FamilySettings settings,
      int generation,
      Map<ServicePortName, ServicePortRules> current,
      String when) {
    var fresh = new FakeNft();
    fresh.apply(
        new RulesetAssembler(settings, java.time.Clock.systemUTC(), generation)
            .replaceAll(List.copyOf(current.values())));
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
}
