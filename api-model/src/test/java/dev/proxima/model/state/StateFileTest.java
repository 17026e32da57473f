package dev.proxima.model.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFileTest {
  @Test
  void readsListsAndSingleDocumentsInFileOrder() throws Exception {
    try (var stream = getClass().getResourceAsStream("/state/cluster.yaml")) {
      var state = StateFile.load(stream, "cluster.yaml");

      assertThat(state.services())
          .extracting(s -> s.getMetadata().getName())
          .containsExactly("web", "legacy");
      assertThat(state.endpointSlices())
          .extracting(s -> s.getMetadata().getName())
          .containsExactly("web-abc", "legacy-xyz", "stray");
      assertThat(state.nodes())
          .extracting(n -> n.getMetadata().getName())
          .containsExactly("node-1");
      assertThat(state.ignored())
          .singleElement()
          .asString()
          .contains("document 6")
          .contains("ConfigMap");
    }
  }

  @Test
  void namesTheDocumentObjectAndFieldOfAWrongType() {
    var text =
        """
        apiVersion: v1
        kind: Service
        metadata: {name: ok, namespace: ns}
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: broken, namespace: ns}
        addressType: IPv4
        endpoints:
        - addresses: ["10.0.0.1"]
          conditions: {ready: {nested: true}}
        """;

    assertThatThrownBy(() -> StateFile.parse(text, "state.yaml"))
        .isInstanceOf(StateFileException.class)
        .hasMessageContaining("state.yaml: document 2")
        .hasMessageContaining("EndpointSlice ns/broken")
        .hasMessageContaining("field endpoints[0].conditions.ready");
  }

  @Test
  void reportsBrokenYamlWithItsDocumentNumber() {
    var text = "kind: Node\nmetadata: {name: a}\n---\nkind: [unclosed\n";

    assertThatThrownBy(() -> StateFile.parse(text, "state.yaml"))
        .isInstanceOf(StateFileException.class)
        .hasMessageStartingWith("state.yaml: document 2 is not valid YAML");
  }

  @Test
  void requiresAKindANameAndANamespace() {
    assertThatThrownBy(() -> StateFile.parse("metadata: {name: a}\n", "f"))
        .hasMessage("f: document 1 (line 1): field kind is missing");
    assertThatThrownBy(() -> StateFile.parse("kind: Service\nmetadata: {namespace: a}\n", "f"))
        .hasMessageContaining("field metadata.name is missing");
    assertThatThrownBy(() -> StateFile.parse("kind: Service\nmetadata: {name: a}\n", "f"))
        .hasMessageContaining("field metadata.namespace is missing");
  }

  @Test
  void reportsTheLineAndColumnOfBrokenYaml() {
    var text = "apiVersion: v1\nitems:\n- kind: Node\n  metadata: {name: a\n- kind: Node\n";

    assertThatThrownBy(() -> StateFile.parse(text, "state.yaml"))
        .hasMessageStartingWith("state.yaml: document 1 is not valid YAML at line 5, column ")
        .hasMessageContaining("expected ','");
  }

  @Test
  void readsAListAsKubectlPrintsItWithItemsBeforeKind() throws Exception {
    var text =
        """
        apiVersion: v1
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1}
        - apiVersion: v1
          kind: Service
          metadata: {name: web, namespace: shop}
        kind: List
        metadata: {resourceVersion: ""}
        """;

    var state = StateFile.parse(text, "f");

    assertThat(state.nodes()).hasSize(1);
    assertThat(state.services()).hasSize(1);
  }

  @Test
  void readsTheJsonKubectlPrintsAndNamesTheLineOfABadItem() throws Exception {
    var json =
        """
        {
            "apiVersion": "v1",
            "items": [
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
                {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"}}
            ],
            "kind": "List"
        }
        """;

    assertThat(StateFile.parse(json, "f.json").services()).hasSize(1);
    assertThatThrownBy(() -> StateFile.parse(json.replace("\"web\"", "7]"), "f.json"))
        .hasMessageStartingWith("f.json: document 1 is not valid JSON at line 5, column ");
    assertThatThrownBy(
            () -> StateFile.parse(json.replace("\"name\": \"web\"", "\"name\": []"), "f.json"))
        .hasMessageContaining("f.json: document 1, items[1] (line 5)")
        .hasMessageContaining("field metadata.name");
  }

  @Test
  void readsAListLargerThanSnakeYamlsDefaultDocumentLimit() throws Exception {
    var text = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
    int services = 0;
    while (text.length() < 4_000_000) {
      text.append("- apiVersion: v1\n  kind: Service\n  metadata:\n")
          .append("    name: service-")
          .append(services++)
          .append("\n    namespace: load\n    annotations: {note: \"")
          .append("x".repeat(200))
          .append("\"}\n  spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}\n");
    }

    assertThat(StateFile.parse(text.toString(), "big.yaml").services()).hasSize(services);
  }

  @Test
  void saysWhenTheFileDoesNotExist(@TempDir Path directory) {
    assertThatThrownBy(() -> StateFile.load(directory.resolve("absent.yaml")))
        .isInstanceOf(StateFileException.class)
        .hasMessageContaining("does not exist");
  }
}
