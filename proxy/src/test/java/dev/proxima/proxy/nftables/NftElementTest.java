package dev.proxima.proxy.nftables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NftElementTest {
  @Test
  void keepsKeyValueAndCommentApartWhateverTheyHold() {
    var element = new NftElement("fd00::1 . tcp . 80", "fd00::5 . 8080", "a : b");

    assertThat(element.key()).isEqualTo("fd00::1 . tcp . 80");
    assertThat(element.value()).isEqualTo("fd00::5 . 8080");
    assertThat(element.comment()).isEqualTo("a_:_b");
    assertThat(NftElement.of("10.180.0.4 . 10.180.0.4").value()).isNull();
  }

  @Test
  void aKeyThatIsAnotherKeyAndValueRunTogetherIsAnotherElement() {
    var web = new NftElement("10.96.0.10 . tcp . 80", "goto lb-2", "shop/web");
    var api = new NftElement("10.96.0.10 . tcp . 80", "goto lb-1", null);
    // A key that is the other's key and value run together is still another key.
    var longer = NftElement.of("10.96.0.10 . tcp . 80goto lb-2");

    assertThat(web.key()).isEqualTo(api.key()).isNotEqualTo(longer.key());
    assertThat(web).isNotEqualTo(longer).isNotEqualTo(api);
  }

  @Test
  void equalFieldsMakeEqualElements() {
    var element = new NftElement("10.96.0.10 . tcp . 80", "goto lb-2", "shop/web");
    var same = new NftElement(new String("10.96.0.10 . tcp . 80"), "goto lb-2", "shop/web");

    assertThat(same).isEqualTo(element).hasSameHashCodeAs(element);
    assertThat(new NftElement("10.96.0.10 . tcp . 80", "goto lb-2", null)).isNotEqualTo(element);
    assertThatThrownBy(() -> new NftElement("a", "", null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
