package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.nftables.NftElement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ElementUsesTest {
  private final ElementUses uses = new ElementUses();

  @Test
  void anElementStaysUntilItsLastUseIsReleased() {
    uses.use(e("a"));
    uses.use(new NftElement(new String("a"), null, null));
    uses.release(e("a"));

    assertThat(uses.contains(e("a"))).isTrue();
    uses.release(e("a"));
    assertThat(uses.contains(e("a"))).isFalse();
    assertThat(uses.isEmpty()).isTrue();
  }

  @Test
  void anElementThatComesBackGoesToTheEnd() {
    uses.use(e("a"));
    uses.use(e("b"));
    uses.use(e("c"));
    uses.release(e("a"));
    uses.use(e("a"));

    assertThat(uses.inUseOrder()).containsExactly(e("b"), e("c"), e("a"));
  }

  @Test
  void manyUsesAndReleasesKeepTheOrderALinkedHashMapWould() {
    var model = new LinkedHashMap<NftElement, Integer>();
    var random = new Random(7);
    for (int step = 0; step < 200_000; step++) {
      var element = e("element " + random.nextInt(5_000));
      if (random.nextInt(3) == 0) {
        uses.release(element);
        if (model.containsKey(element) && model.merge(element, -1, Integer::sum) == 0) {
          model.remove(element);
        }
      } else {
        uses.use(element);
        model.merge(element, 1, Integer::sum);
      }
    }

    assertThat(uses.inUseOrder()).containsExactlyElementsOf(new ArrayList<>(model.keySet()));
    assertThat(model.keySet()).allSatisfy(element -> assertThat(uses.contains(element)).isTrue());
  }

  private static NftElement e(String key) {
    return NftElement.of(key);
  }
}
