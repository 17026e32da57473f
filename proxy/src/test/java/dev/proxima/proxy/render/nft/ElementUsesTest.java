package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ElementUsesTest {
  private final ElementUses uses = new ElementUses();

  @Test
  void anElementStaysUntilItsLastUseIsReleased() {
    uses.use("a");
    uses.use(new String("a"));
    uses.release("a");

    assertThat(uses.contains("a")).isTrue();
    uses.release("a");
    assertThat(uses.contains("a")).isFalse();
    assertThat(uses.isEmpty()).isTrue();
  }

  @Test
  void anElementThatComesBackGoesToTheEnd() {
    uses.use("a");
    uses.use("b");
    uses.use("c");
    uses.release("a");
    uses.use("a");

    assertThat(uses.inUseOrder()).containsExactly("b", "c", "a");
  }

  @Test
  void manyUsesAndReleasesKeepTheOrderALinkedHashMapWould() {
    var model = new LinkedHashMap<String, Integer>();
    var random = new Random(7);
    for (int step = 0; step < 200_000; step++) {
      var element = "element " + random.nextInt(5_000);
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
}
