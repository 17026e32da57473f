package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class OpenApiTest {
  private static JsonNode schemas(String groupVersionPath) {
    return OpenApi.document("/openapi/v3" + groupVersionPath)
        .orElseThrow()
        .path("components")
        .path("schemas");
  }

  private static JsonNode kind(JsonNode schemas, String kind) {
    for (var schema : schemas) {
      for (var gvk : schema.path("x-kubernetes-group-version-kind")) {
        if (gvk.path("kind").asText().equals(kind)) {
          return schema;
        }
      }
    }
    throw new AssertionError("no schema of " + kind);
  }

  private static JsonNode resolve(JsonNode schemas, JsonNode field) {
    var ref = field.path("allOf").path(0).path("$ref").asText();
    return schemas.path(ref.substring("#/components/schemas/".length()));
  }

  @Test
  void explainFindsEveryServedKindByItsGroupVersionKindAndIsToldWhereTheDocumentationIs() {
    var core = schemas("/api/v1");
    for (var kind : java.util.List.of("Namespace", "Node", "Service", "Event", "Pod")) {
      assertThat(kind(core, kind).path("description").asText())
          .as(kind)
          .isEqualTo(KindSchemas.KIND_DESCRIPTION)
          .contains("kubectl explain against a real cluster");
    }
    var slice = kind(schemas("/apis/discovery.k8s.io/v1"), "EndpointSlice");
    assertThat(slice.path("x-kubernetes-group-version-kind").path(0).path("group").asText())
        .isEqualTo("discovery.k8s.io");
    assertThat(slice.path("properties").has("endpoints")).isTrue();
  }

  @Test
  void aServicesSpecHoldsTrafficDistributionAsAStringAndItsPortsAsAList() {
    var core = schemas("/api/v1");
    var spec = resolve(core, kind(core, "Service").path("properties").path("spec"));
    var distribution = spec.path("properties").path("trafficDistribution");
    assertThat(distribution.path("type").asText()).isEqualTo("string");
    assertThat(distribution.path("description").asText()).isEqualTo(KindSchemas.FIELD_DESCRIPTION);
    var ports = spec.path("properties").path("ports");
    assertThat(ports.path("type").asText()).isEqualTo("array");
    var port = resolve(core, ports.path("items"));
    assertThat(port.path("properties").path("targetPort").path("format").asText())
        .isEqualTo("int-or-string");
    assertThat(port.path("properties").path("port").path("type").asText()).isEqualTo("integer");
    assertThat(spec.path("properties").path("selector").path("additionalProperties").path("type"))
        .hasToString("\"string\"");
    assertThat(spec.path("properties").has("additionalProperties"))
        .as("the model's catch-all map is no field")
        .isFalse();
  }

  @Test
  void noPatchDeclaresAStrategicMergeBodySoApplyKeepsItsCompiledInPatchRules() {
    var document = OpenApi.document("/openapi/v3/api/v1").orElseThrow();
    assertThat(document.path("paths").toString()).doesNotContain("strategic-merge-patch");
  }
}
