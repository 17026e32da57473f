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
        .hasMessage("f: document 1: field kind is missing");
    assertThatThrownBy(() -> StateFile.parse("kind: Service\nmetadata: {namespace: a}\n", "f"))
        .hasMessageContaining("field metadata.name is missing");
    assertThatThrownBy(() -> StateFile.parse("kind: Service\nmetadata: {name: a}\n", "f"))
        .hasMessageContaining("field metadata.namespace is missing");
  }

  @Test
  void saysWhenTheFileDoesNotExist(@TempDir Path directory) {
    assertThatThrownBy(() -> StateFile.load(directory.resolve("absent.yaml")))
        .isInstanceOf(StateFileException.class)
        .hasMessageContaining("does not exist");
  }
}
