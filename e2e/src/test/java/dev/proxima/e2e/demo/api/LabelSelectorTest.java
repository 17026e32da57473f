package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Label selectors in every form kubectl sends, matched as a real API server matches them. */
class LabelSelectorTest {
  private static JsonNode labelled(String labelsJson) throws Exception {
    return new ObjectMapper().readTree("{\"metadata\":{\"labels\":" + labelsJson + "}}");
  }

  private static boolean matches(String selector, String labelsJson) throws Exception {
    return LabelSelector.parse(URLEncoder.encode(selector, StandardCharsets.UTF_8))
        .matches(labelled(labelsJson));
  }

  @Test
  void setBasedTermsSelectOnlyTheirValues() throws Exception {
    assertThat(matches("app in (web,api)", "{\"app\":\"web\"}")).isTrue();
    assertThat(matches("app in (web,api)", "{\"app\":\"db\"}")).isFalse();
    assertThat(matches("app in (web,api)", "{}")).isFalse();
    assertThat(matches("app notin (web)", "{\"app\":\"db\"}")).isTrue();
    assertThat(matches("app notin (web)", "{}")).as("notin matches an absent label").isTrue();
    assertThat(matches("app notin (web)", "{\"app\":\"web\"}")).isFalse();
    assertThat(matches("!legacy", "{\"app\":\"web\"}")).isTrue();
    assertThat(matches("!legacy", "{\"legacy\":\"\"}")).isFalse();
  }

  @Test
  void equalityTermsAndExistenceCombineWithCommasOutsideSets() throws Exception {
    assertThat(matches("app=web,tier!=db,zone", "{\"app\":\"web\",\"zone\":\"a\"}")).isTrue();
    assertThat(matches("app==web,tier in (a, b)", "{\"app\":\"web\",\"tier\":\"b\"}")).isTrue();
    assertThat(matches("app=web,zone", "{\"app\":\"web\"}")).isFalse();
    assertThat(matches("tier!=db", "{\"tier\":\"db\"}")).isFalse();
  }

  @Test
  void onlyInNotinAndNotExistsAreSetBased() {
    assertThat(LabelSelector.parse("app%3Dweb%2Czone").setBased()).isFalse();
    assertThat(LabelSelector.parse("app+in+%28web%29").setBased()).isTrue();
    assertThat(LabelSelector.parse("%21legacy").setBased()).isTrue();
  }

  @Test
  void whatIsNotASelectorIsRefusedNamingTheTerm() {
    assertThatThrownBy(() -> LabelSelector.parse("bad+label%21%21"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"bad label!!\" is not a label selector term");
    assertThatThrownBy(() -> LabelSelector.parse("app+within+%28web%29"))
        .hasMessageContaining("app within (web)");
  }
}
