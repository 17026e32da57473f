package dev.proxima.proxy.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SourceRangesTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "10.0.0.0/8                                  | 10.0.0.0/8",
        "10.1.0.0/16,10.0.0.0/8                      | 10.0.0.0/8",
        "10.0.0.0/8,10.1.0.0/16,10.0.0.0/8           | 10.0.0.0/8",
        "192.0.2.0/24,10.0.0.0/8,192.0.2.0/25        | 192.0.2.0/24,10.0.0.0/8",
        "10.0.0.0/9,10.128.0.0/9,10.0.0.0/8          | 10.0.0.0/8",
        "10.0.0.0/9,10.128.0.0/9                     | 10.0.0.0/9,10.128.0.0/9",
        "0.0.0.0/0,fd00::/64,192.0.2.1/32            | 0.0.0.0/0,fd00::/64",
        "fd00::/64,fd00::1/128,::/0                  | ::/0",
        "010.0.0.0/08,10.0.0.7/32                    | 10.0.0.0/8",
        "255.255.255.255/32,255.255.255.0/24         | 255.255.255.0/24",
        "not-a-cidr,192.0.2.0/24                     | 192.0.2.0/24",
      })
  void keepsTheOutermostRangesOnceEachInFirstSeenOrder(String given, String expected) {
    var ranges = SourceRanges.of(List.of(given.split(",")));

    assertThat(ranges).containsExactly(expected.split(","));
  }

  @Test
  void unreadableRangesAreKeptAsideForAWarning() {
    var ranges = SourceRanges.of(List.of("not-a-cidr", "10.0.0.0/8"));

    assertThat(ranges.unreadable()).containsExactly("not-a-cidr");
  }

  @Test
  void reducedRangesAreTakenAsTheyAreNotReducedAgain() {
    var once = SourceRanges.of(List.of("10.0.0.0/8", "10.1.0.0/16"));

    assertThat(SourceRanges.of(once)).isSameAs(once);
    assertThat(once.of(IpFamily.IPV4)).isSameAs(once.cidrs());
  }

  @Test
  void agreesWithAPairwiseCheckOnRandomNestedRanges() {
    var random = new Random(7);
    for (int round = 0; round < 200; round++) {
      var cidrs = new ArrayList<Cidr>();
      for (int i = 0; i < 40; i++) {
        cidrs.add(
            Cidr.parse(
                "10."
                    + random.nextInt(4)
                    + "."
                    + random.nextInt(4)
                    + ".0/"
                    + (8 + random.nextInt(17))));
      }
      assertThat(SourceRanges.outermost(cidrs, null)).isEqualTo(pairwise(cidrs));
    }
  }

  @Test
  void twentyThousandRangesCostNLogNComparisonsNotNSquared() {
    // The shape of a hostile LoadBalancer Service: 20,000 ranges, duplicated and nested.
    var random = new Random(1);
    var cidrs = new ArrayList<Cidr>();
    for (int i = 0; i < 20_000; i++) {
      int prefix = 16 + random.nextInt(17);
      cidrs.add(
          Cidr.parse(
              random.nextInt(224)
                  + "."
                  + random.nextInt(256)
                  + "."
                  + random.nextInt(256)
                  + "."
                  + random.nextInt(256)
                  + "/"
                  + prefix));
    }
    long[] work = new long[1];

    var kept = SourceRanges.outermost(cidrs, work);

    int n = cidrs.size();
    double log2 = Math.log(n) / Math.log(2);
    assertThat(kept).isNotEmpty().hasSizeLessThanOrEqualTo(n);
    // A pairwise check makes n^2 = 400,000,000; one sort and one sweep make about n log n.
    assertThat(work[0]).isLessThan((long) (3 * n * log2) + 2L * n);
  }

  @Test
  void workGrowsLinearlyWithTheNumberOfRanges() {
    long small = workFor(2_000);
    long large = workFor(20_000);

    // Ten times the ranges: a bit more than ten times the work (log n), far from a hundred.
    assertThat(large).isLessThan(small * 15);
  }

  private static long workFor(int n) {
    var cidrs = new ArrayList<Cidr>();
    for (int i = 0; i < n; i++) {
      cidrs.add(Cidr.parse("10." + (i / 256 % 256) + "." + (i % 256) + ".0/24"));
    }
    long[] work = new long[1];
    SourceRanges.outermost(cidrs, work);
    return work[0];
  }

  private static List<Cidr> pairwise(List<Cidr> cidrs) {
    var result = new ArrayList<Cidr>();
    for (int i = 0; i < cidrs.size(); i++) {
      var candidate = cidrs.get(i);
      boolean covered = false;
      for (int j = 0; j < cidrs.size() && !covered; j++) {
        var other = cidrs.get(j);
        covered = i != j && other.contains(candidate) && (!candidate.contains(other) || j < i);
      }
      if (!covered) {
        result.add(candidate);
      }
    }
    return result;
  }
}
