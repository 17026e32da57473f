package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class FieldSelectorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void kubectlDescribesEventsOfOneObjectByItsNameNamespaceKindAndUid() throws Exception {
    var event =
        JSON.readTree(
            "{\"involvedObject\":{\"kind\":\"Service\",\"name\":\"web\",\"namespace\":\"demo\",\"uid\":\"u1\"},\"type\":\"Warning\"}");
    var selector =
        "involvedObject.name%3Dweb%2CinvolvedObject.namespace%3Ddemo%2CinvolvedObject.kind%3DService%2CinvolvedObject.uid%3Du1";

    assertThat(FieldSelector.parse(selector).matches(event)).isTrue();
    assertThat(FieldSelector.parse(selector.replace("web", "api")).matches(event)).isFalse();
    assertThat(FieldSelector.parse("type!=Warning").matches(event)).isFalse();
    assertThat(FieldSelector.parse("type==Warning").matches(event)).isTrue();
    assertThat(FieldSelector.parse("reason=").matches(event)).isTrue();
  }

  @Test
  void aTermWithoutAnOperatorIsRejected() {
    assertThatThrownBy(() -> FieldSelector.parse("metadata.name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metadata.name");
  }
}
