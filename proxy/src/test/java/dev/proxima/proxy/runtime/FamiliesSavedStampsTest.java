package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FamiliesSavedStampsTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ObjectKey API = new ObjectKey("shop", "api");

  @Test
  void theSecondFamilysEqualStampsAreTheFirstFamilysInstance() {
    var families = new FamiliesSavedStamps();
    var ipv4 = families.share(new HashMap<>(Map.of(WEB, "7 web-a=9", API, "3")));

    var ipv6 = families.share(new HashMap<>(Map.of(API, "3", WEB, "7 web-a=9")));

    assertThat(ipv6).isSameAs(ipv4);
    assertThat(ipv6.services()).isEqualTo(2);
    assertThat(ipv6.slices()).isEqualTo(1);
  }

  @Test
  void stampsThatDifferKeepTheirOwnAndTheFirstStaysTheOneToMatch() {
    var families = new FamiliesSavedStamps();
    var ipv4 = families.share(Map.of(WEB, "7 web-a=9"));

    var ipv6 = families.share(Map.of(WEB, "7 web-a=8"));
    var third = families.share(Map.of(WEB, "7 web-a=9"));

    assertThat(ipv6).isNotSameAs(ipv4);
    assertThat(ipv6.stamps()).containsEntry(WEB, "7 web-a=8");
    assertThat(third).isSameAs(ipv4);
  }
}
