package dev.proxima.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.junit.jupiter.api.Test;

class CompactingItemStoreTest {
  @Test
  void storesTheObjectItWasGivenAfterShrinkingItInPlace() {
    var store = new CompactingItemStore<ConfigMap>(object -> object.getData().remove("large"));
    var object =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("settings")
            .endMetadata()
            .addToData("large", "x".repeat(1000))
            .addToData("small", "y")
            .build();

    store.put(store.getKey(object), object);

    assertThat(store.getKey(object)).isEqualTo("shop/settings");
    assertThat(store.get("shop/settings")).isSameAs(object);
    assertThat(object.getData()).containsOnlyKeys("small");
  }
}
