package dev.proxima.proxy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProxyStateTest {
  private final ProxyState state = new ProxyState(Instant.EPOCH, "node-a");

  @Test
  void eachFamilyKeepsItsOwnPlansForTheLifeOfTheState() {
    assertThat(state.plans(IpFamily.IPV4)).isSameAs(state.plans(IpFamily.IPV4));
    assertThat(state.plans(IpFamily.IPV4)).isNotSameAs(state.plans(IpFamily.IPV6));
    assertThat(state.plans(IpFamily.IPV6).serviceCount()).isZero();
  }

  @Test
  void bothFamiliesShareThePendingChangesTheHandlersFeed() {
    assertThat(state.changes()).isSameAs(state.changes());
    assertThat(state.changes().pendingServices()).isZero();
  }
}
