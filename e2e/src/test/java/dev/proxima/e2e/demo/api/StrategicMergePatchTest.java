package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class StrategicMergePatchTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode json(String text) throws Exception {
    return (ObjectNode) JSON.readTree(text.replace('\'', '"'));
  }

  private static final String SERVICE =
      """
      {'apiVersion':'v1','kind':'Service','metadata':{'name':'web','labels':{'app':'web'}},
       'spec':{'clusterIP':'10.96.0.100','trafficDistribution':'PreferSameZone',
               'ports':[{'name':'http','port':80,'targetPort':8080,'protocol':'TCP'},
                        {'name':'admin','port':9090,'protocol':'TCP'}]}}
      """;

  @Test
  void aServicePortIsMergedByItsPortNumberNotAppended() throws Exception {
    var patched =
        StrategicMergePatch.apply(
            json(SERVICE),
            json(
                """
                {'spec':{'$setElementOrder/ports':[{'port':80},{'port':9090}],
                         'ports':[{'port':80,'targetPort':8081}]}}
                """));

    assertThat(patched.path("spec").path("ports"))
        .isEqualTo(
            json("""
                    {'p':[{'name':'http','port':80,'targetPort':8081,'protocol':'TCP'},
                          {'name':'admin','port':9090,'protocol':'TCP'}]}
                    """)
                .get("p"));
  }

  @Test
  void kubectlApplyRemovingOnePortAndAddingAnotherKeepsTheOrderItAsksFor() throws Exception {
    // What kubectl apply sends after the file's second port changed from 9090 to 9091.
    var patched =
        StrategicMergePatch.apply(
            json(SERVICE),
            json(
                """
                {'spec':{'$setElementOrder/ports':[{'port':80},{'port':9091}],
                         'ports':[{'name':'admin','port':9091},{'$patch':'delete','port':9090}]}}
                """));

    assertThat(patched.path("spec").path("ports").findValuesAsText("name"))
        .containsExactly("http", "admin");
    assertThat(patched.path("spec").path("ports").get(1).path("port").asInt()).isEqualTo(9091);
  }

  @Test
  void nullRemovesAFieldAndMapsMergeKeyByKey() throws Exception {
    var patched =
        StrategicMergePatch.apply(
            json(SERVICE),
            json("{'metadata':{'labels':{'tier':'web'}},'spec':{'trafficDistribution':null}}"));

    assertThat(patched.path("metadata").path("labels"))
        .isEqualTo(json("{'app':'web','tier':'web'}"));
    assertThat(patched.path("spec").has("trafficDistribution")).isFalse();
    assertThat(patched.path("spec").path("clusterIP").asText()).isEqualTo("10.96.0.100");
  }

  @Test
  void anEndpointSlicesEndpointsAreReplacedWholeAsOnARealApiServer() throws Exception {
    var slice =
        json(
            """
            {'kind':'EndpointSlice','endpoints':[{'addresses':['10.0.0.1']},{'addresses':['10.0.0.2']}]}
            """);

    var patched =
        StrategicMergePatch.apply(slice, json("{'endpoints':[{'addresses':['10.0.0.3']}]}"));

    assertThat(patched.path("endpoints"))
        .isEqualTo(json("{'e':[{'addresses':['10.0.0.3']}]}").get("e"));
  }

  @Test
  void finalizersMergeAsASetAndDeleteFromPrimitiveListRemovesOne() throws Exception {
    var service = json("{'kind':'Service','metadata':{'finalizers':['a','b']}}");

    var patched =
        StrategicMergePatch.apply(
            service,
            json(
                "{'metadata':{'finalizers':['c','a'],'$deleteFromPrimitiveList/finalizers':['b']}}"));

    assertThat(patched.path("metadata").path("finalizers"))
        .isEqualTo(json("{'f':['a','c']}").get("f"));
  }

  @Test
  void patchReplaceOnAMapReplacesItWhole() throws Exception {
    var patched =
        StrategicMergePatch.apply(
            json(SERVICE), json("{'metadata':{'labels':{'$patch':'replace','only':'this'}}}"));

    assertThat(patched.path("metadata").path("labels")).isEqualTo(json("{'only':'this'}"));
  }

  @Test
  void kindsWithoutKnownMergeKeysAreRefused() {
    assertThat(StrategicMergePatch.supports("Service")).isTrue();
    assertThat(StrategicMergePatch.supports("Pod")).isFalse();
  }
}
