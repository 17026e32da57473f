package dev.proxima.proxy.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.plan.ClusterNodeAddresses;
import dev.proxima.proxy.sync.SyncPolicy.Basis;
import dev.proxima.proxy.sync.SyncPolicy.Decision;
import dev.proxima.proxy.sync.SyncPolicy.Reason;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SyncPolicyTest {
  private static final Duration HOUR = Duration.ofHours(1);
  private static final Basis LOADED =
      new Basis(List.of("node-a", "zone-a"), List.of("10.1.2.3"), List.of("10.244.1.0/24"), null);

  private final MutableClock clock = new MutableClock();

  /** A policy whose full sync loaded {@link #LOADED} at the clock's start. */
  private SyncPolicy loaded() {
    var policy = new SyncPolicy(HOUR, clock);
    policy.fullLoaded(LOADED);
    return policy;
  }

  /** What happens after the full sync, the basis the next sync is for, and its decision. */
  static Stream<Arguments> afterAFullSync() {
    BiConsumer<SyncPolicy, MutableClock> nothing = (policy, clock) -> {};
    return Stream.of(
        Arguments.of("nothing", nothing, LOADED, Decision.PARTIAL),
        Arguments.of(
            "a load failed",
            (BiConsumer<SyncPolicy, MutableClock>) (policy, clock) -> policy.failed(),
            LOADED,
            new Decision(true, Reason.AFTER_FAILURE)),
        Arguments.of(
            "another tool changed the rules",
            (BiConsumer<SyncPolicy, MutableClock>)
                (policy, clock) -> policy.rulesChangedElsewhere(),
            LOADED,
            new Decision(true, Reason.RULES_CHANGED_ELSEWHERE)),
        Arguments.of(
            "a full sync was requested",
            (BiConsumer<SyncPolicy, MutableClock>) (policy, clock) -> policy.requested(),
            LOADED,
            new Decision(true, Reason.REQUESTED)),
        Arguments.of(
            "a failure, then the rules changed elsewhere: the failure is the reason",
            (BiConsumer<SyncPolicy, MutableClock>)
                (policy, clock) -> {
                  policy.failed();
                  policy.rulesChangedElsewhere();
                },
            LOADED,
            new Decision(true, Reason.AFTER_FAILURE)),
        Arguments.of(
            "the Node's zone changed",
            nothing,
            new Basis(
                List.of("node-a", "zone-b"), LOADED.nodePortAddresses(), LOADED.localCidrs(), null),
            new Decision(true, Reason.NODE_CHANGED)),
        Arguments.of(
            "an interface address came",
            nothing,
            new Basis(LOADED.node(), List.of("10.1.2.3", "10.1.2.4"), LOADED.localCidrs(), null),
            new Decision(true, Reason.NODE_PORT_ADDRESSES_CHANGED)),
        Arguments.of(
            "the pod CIDRs changed",
            nothing,
            new Basis(LOADED.node(), LOADED.nodePortAddresses(), List.of("10.244.2.0/24"), null),
            new Decision(true, Reason.LOCAL_CIDRS_CHANGED)),
        Arguments.of(
            "the addresses that decide which externalIPs are refused changed",
            nothing,
            new Basis(
                LOADED.node(),
                LOADED.nodePortAddresses(),
                LOADED.localCidrs(),
                new dev.proxima.proxy.plan.AddressPolicy(
                        List.of("10.1.2.3"),
                        List.of("10.244.0.0/16"),
                        List.of("10.96.0.0/12"),
                        List.of("203.0.113.0/24"),
                        java.util.Set.of(),
                        ClusterNodeAddresses.NONE)
                    .inputs()),
            new Decision(true, Reason.ADDRESS_POLICY_CHANGED)),
        Arguments.of(
            "59 minutes passed",
            (BiConsumer<SyncPolicy, MutableClock>)
                (policy, clock) -> clock.advance(Duration.ofMinutes(59)),
            LOADED,
            Decision.PARTIAL),
        Arguments.of(
            "an hour passed",
            (BiConsumer<SyncPolicy, MutableClock>) (policy, clock) -> clock.advance(HOUR),
            LOADED,
            new Decision(true, Reason.PERIOD)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void afterAFullSync(
      String what, BiConsumer<SyncPolicy, MutableClock> then, Basis next, Decision expected) {
    var policy = loaded();
    then.accept(policy, clock);
    assertThat(policy.decide(next)).isEqualTo(expected);
  }

  @Test
  void theFirstSyncIsFullAndNothingCountsAsLoadedBeforeIt() {
    var policy = new SyncPolicy(HOUR, clock);
    assertThat(policy.decide(LOADED)).isEqualTo(new Decision(true, Reason.FIRST_SYNC));
    assertThat(policy.fullSyncForced()).isTrue();
    assertThat(policy.loadedOnce()).isFalse();
  }

  @Test
  void aFullSyncThatLoadsEndsWhatForcedItAndRestartsThePeriod() {
    var policy = loaded();
    policy.failed();
    clock.advance(Duration.ofMinutes(30));
    policy.fullLoaded(LOADED);
    clock.advance(Duration.ofMinutes(59));
    assertThat(policy.fullSyncForced()).isFalse();
    assertThat(policy.decide(LOADED)).isEqualTo(Decision.PARTIAL);
    clock.advance(Duration.ofMinutes(1));
    assertThat(policy.decide(LOADED)).isEqualTo(new Decision(true, Reason.PERIOD));
  }

  @Test
  void aPartialSyncNeverEndsAForcedFullOne() {
    var policy = loaded();
    policy.failed();
    // Partial syncs report nothing to the policy; only a loaded full sync clears the failure.
    assertThat(policy.decide(LOADED)).isEqualTo(new Decision(true, Reason.AFTER_FAILURE));
    assertThat(policy.decide(LOADED)).isEqualTo(new Decision(true, Reason.AFTER_FAILURE));
  }

  private static Basis withAddressPolicy(List<String> serviceCidrs, List<String> externalIpCidrs) {
    return new Basis(
        LOADED.node(),
        LOADED.nodePortAddresses(),
        LOADED.localCidrs(),
        new dev.proxima.proxy.plan.AddressPolicy(
                List.of("10.1.2.3", "172.31.5.5"),
                List.of("10.244.0.0/16"),
                serviceCidrs,
                externalIpCidrs,
                java.util.Set.of(),
                ClusterNodeAddresses.NONE)
            .inputs());
  }

  @Test
  void aNewServiceCidrOrExternalIpCidrMakesTheNextSyncFullButTheSameInputsInAnotherOrderDoNot() {
    var policy = new SyncPolicy(HOUR, clock);
    policy.fullLoaded(withAddressPolicy(List.of("10.96.0.0/12"), List.of("203.0.113.0/24")));

    assertThat(policy.decide(withAddressPolicy(List.of("10.96.0.0/12"), List.of("203.0.113.0/24"))))
        .isEqualTo(Decision.PARTIAL);
    assertThat(
            policy.decide(
                withAddressPolicy(
                    List.of("10.96.0.0/12", "fd00::/108"), List.of("203.0.113.0/24"))))
        .isEqualTo(new Decision(true, Reason.ADDRESS_POLICY_CHANGED));
    assertThat(
            policy.decide(
                withAddressPolicy(
                    List.of("10.96.0.0/12"), List.of("198.51.100.0/24", "203.0.113.0/24"))))
        .isEqualTo(new Decision(true, Reason.ADDRESS_POLICY_CHANGED));
    policy.fullLoaded(
        withAddressPolicy(List.of("fd00::/108", "10.96.0.0/12"), List.of("203.0.113.0/24")));
    assertThat(
            policy.decide(
                withAddressPolicy(
                    List.of("10.96.0.0/12", "fd00::/108"), List.of("203.0.113.0/24"))))
        .isEqualTo(Decision.PARTIAL);
  }
}
