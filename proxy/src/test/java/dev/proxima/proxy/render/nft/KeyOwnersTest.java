package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.nftables.NftElement;
import java.util.HashMap;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyOwnersTest {
  private static final ServicePortName WEB = port("shop/web");
  private static final ServicePortName API = port("shop/api");

  private final KeyOwners owners = new KeyOwners();

  @Test
  void theFirstPortKeepsAKeyAndALaterOneLearnsWhoHasIt() {
    var webElement = new NftElement("10.96.0.10 . tcp . 80", "goto lb-2", "shop/web");
    var apiElement = new NftElement("10.96.0.10 . tcp . 80", "goto lb-1", "shop/api");

    assertThat(owners.claim(webElement, WEB)).isNull();
    assertThat(owners.claim(apiElement, API)).isEqualTo(WEB);
  }

  @Test
  void onlyTheHolderCanFreeAKey() {
    var key = "10.96.0.10 . tcp . 80";
    owners.claim(new NftElement(key, "goto lb-1", null), WEB);

    owners.release(NftElement.of(key), API);
    assertThat(owners.claim(new NftElement(key, "goto lb-2", null), API)).isEqualTo(WEB);
    owners.release(NftElement.of(key), WEB);
    assertThat(owners.claim(new NftElement(key, "goto lb-2", null), API)).isNull();
  }

  @Test
  void manyClaimsAndReleasesAnswerAsAHashMapWould() {
    var model = new HashMap<String, ServicePortName>();
    var random = new Random(11);
    for (int step = 0; step < 200_000; step++) {
      var key = "10.96." + random.nextInt(40) + "." + random.nextInt(100) + " . tcp . 80";
      var port = random.nextBoolean() ? WEB : API;
      if (random.nextInt(3) == 0) {
        owners.release(NftElement.of(key), port);
        model.remove(key, port);
      } else {
        var holder = model.putIfAbsent(key, port);
        assertThat(owners.claim(new NftElement(key, "goto lb-1", null), port))
            .isEqualTo(port.equals(holder) ? null : holder);
      }
    }
  }

  private static ServicePortName port(String service) {
    return new ServicePortName(ObjectKey.parse(service), "", Protocol.TCP);
  }
}
