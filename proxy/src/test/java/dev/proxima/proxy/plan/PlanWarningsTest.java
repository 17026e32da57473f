package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlanWarningsTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "EndpointSlice ns/s-1 endpoints[3].addresses[0]: 224.0.0.3 is a multicast address, never a Service endpoint; endpoint ignored | EndpointSlice ns/s-1 | special-address",
        "ns/web spec.externalIPs: 127.0.0.1 is a loopback address; ignored | Service ns/web | special-address",
        "ns/web spec.externalIPs: \"x\" is not an IP address; ignored | Service ns/web | not-an-address",
        "ns/web spec.loadBalancerSourceRanges[0]: \"x\" is not a CIDR; it allows no source | Service ns/web | not-a-cidr",
        "ns/web:http: loadBalancerSourceRange fd00::/8 is not an IPv4 CIDR; ignored (the other ranges still apply) | Service ns/web | not-a-cidr",
        "ns/web spec.ports[1].port: 0 is out of range 1-65535; port ignored | Service ns/web | out-of-range",
        "a Service without metadata.name or metadata.namespace; ignored | proxy | no-metadata",
        "EndpointSlice ns/s-1 ports[0]: null; ignored | EndpointSlice ns/s-1 | null-item",
      })
  void namesTheObjectAndOneReasonOfAFixedVocabulary(String warning, String object, String reason) {
    assertThat(PlanWarnings.objectOf(warning)).isEqualTo(object);
    assertThat(PlanWarnings.reasonOf(warning)).isEqualTo(reason);
  }

  @Test
  void tenThousandWarningsOfOneSliceAreOneGroupWithACountAndThreeExamples() {
    var warnings = new ArrayList<String>();
    for (int i = 0; i < 10_000; i++) {
      warnings.add(
          "EndpointSlice ns/s-1 endpoints["
              + i
              + "].addresses[0]: 224.0.0.1 is a multicast address, never a Service endpoint;"
              + " endpoint ignored");
    }

    var groups = PlanWarnings.group(warnings);

    assertThat(groups)
        .singleElement()
        .satisfies(
            group -> {
              assertThat(group.count()).isEqualTo(10_000);
              assertThat(group.examples()).hasSize(3);
              assertThat(group.line())
                  .startsWith("EndpointSlice ns/s-1: 10000 warnings (special-address)");
            });
  }

  @Test
  void aGroupIsToldWhenItAppearsOrChangesAndForgottenByTheNextFullPlan() {
    var ledger = new PlanWarnings();
    var told = new ArrayList<PlanWarnings.Group>();
    var one = List.of("ns/web spec.ports[1].port: 0 is out of range 1-65535; port ignored");

    ledger.full(one, told::add);
    ledger.full(one, told::add);
    ledger.partial(one, told::add);
    assertThat(told).hasSize(1);

    ledger.full(List.of(), told::add);
    assertThat(ledger.size()).isZero();
    ledger.partial(one, told::add);
    assertThat(told).as("it came back").hasSize(2);
  }

  @Test
  void anExampleIsCutSoATenantsStringCannotMakeALineLong() {
    var line =
        PlanWarnings.group(
                List.of(
                    "ns/web spec.externalIPs: \""
                        + "x".repeat(100_000)
                        + "\" is not an IP address; ignored"))
            .get(0)
            .line();

    assertThat(line.length()).isLessThan(400);
  }

  private static String multicast(int slice) {
    return "EndpointSlice flood/s-"
        + slice
        + " endpoints[0].addresses[0]: 224.0.0.1 is a multicast address, never a Service"
        + " endpoint; endpoint ignored";
  }

  /**
   * Twice the bound of objects with warnings, rewritten again and again by a tenant in partial
   * syncs between full syncs: each group is told once, the ones past the bound in one line per
   * reason, and nothing is told again because the bound pushed it out.
   */
  @Test
  void aChurnOfMoreObjectsThanTheBoundIsToldOnceNotOncePerReturn() {
    var ledger = new PlanWarnings();
    var told = new ArrayList<PlanWarnings.Group>();
    int objects = 2 * PlanWarnings.MAX_GROUPS;
    var all = new ArrayList<String>();
    for (int i = 0; i < objects; i++) {
      all.add(multicast(i));
    }
    var random = new java.util.Random(11);

    ledger.full(all, told::add);
    for (int round = 0; round < 5; round++) {
      for (int step = 0; step < objects; step++) {
        ledger.partial(List.of(multicast(random.nextInt(objects))), told::add);
      }
      java.util.Collections.shuffle(all, random);
      ledger.full(all, told::add);
    }

    assertThat(told)
        .as("one line per remembered object and one for the rest, over all the churn")
        .hasSize(PlanWarnings.MAX_GROUPS + 1);
    assertThat(told.get(told.size() - 1).line())
        .startsWith("10000 more objects have 10000 warnings (special-address)");
    assertThat(ledger.size()).isEqualTo(PlanWarnings.MAX_GROUPS);
    assertThat(ledger.countsByReason()).containsEntry("special-address", objects);
  }

  @Test
  void objectsPastTheBoundMetInPartialSyncsAreToldInOneLinePerReasonUntilTheNextFullSync() {
    var ledger = new PlanWarnings();
    var told = new ArrayList<PlanWarnings.Group>();
    var first = new ArrayList<String>();
    for (int i = 0; i < PlanWarnings.MAX_GROUPS; i++) {
      first.add(multicast(i));
    }
    ledger.full(first, told::add);
    told.clear();

    for (int i = PlanWarnings.MAX_GROUPS; i < 3 * PlanWarnings.MAX_GROUPS; i++) {
      ledger.partial(
          List.of(multicast(i), "flood/web spec.ports[0].port: 0 is out of range 1-65535"),
          told::add);
    }

    assertThat(told)
        .extracting(PlanWarnings.Group::reason)
        .containsExactly("special-address", "out-of-range");
    assertThat(told.get(0).line())
        .startsWith("More objects have warnings (special-address)")
        .contains("EndpointSlice flood/s-10000");
    assertThat(ledger.size()).isEqualTo(PlanWarnings.MAX_GROUPS);
  }
}
