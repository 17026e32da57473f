package dev.proxima.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ObjectKeyTest {
  @Test
  void printsAndParsesNamespaceSlashName() {
    var key = ObjectKey.parse("shop/web");

    assertThat(key).isEqualTo(new ObjectKey("shop", "web"));
    assertThat(key).hasToString("shop/web");
  }

  @Test
  void rejectsKeysThatAreNotNamespaceSlashName() {
    for (var bad : new String[] {"web", "/web", "shop/", "a/b/c"}) {
      assertThatThrownBy(() -> ObjectKey.parse(bad)).hasMessageContaining(bad);
    }
  }

  @Test
  void ordersByNamespaceThenName() {
    assertThat(new ObjectKey("a", "z")).isLessThan(new ObjectKey("b", "a"));
    assertThat(new ObjectKey("a", "a")).isLessThan(new ObjectKey("a", "b"));
  }
}
