package dev.proxima.model.state;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads cluster state as {@code kubectl get -o yaml} prints it: a multi-document YAML (or JSON)
 * stream of objects, or {@code v1 List}s of them. Errors name the document, the object and the
 * field, because operators feed this files they exported by hand.
 */
public final class StateFile {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  // fabric8's model classes carry their own Jackson annotations; a plain mapper keeps field paths.
  private static final ObjectMapper OBJECTS = new ObjectMapper();

  private StateFile() {}

  public static ClusterState load(Path path) throws StateFileException {
    try {
      return parse(Files.readString(path), path.toString());
    } catch (NoSuchFileException missing) {
      throw new StateFileException("state file " + path + " does not exist", missing);
    } catch (IOException unreadable) {
      throw new StateFileException(
          "cannot read state file " + path + ": " + unreadable.getMessage(), unreadable);
    }
  }

  public static ClusterState load(InputStream stream, String origin) throws StateFileException {
    try {
      return parse(
          new String(stream.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), origin);
    } catch (IOException unreadable) {
      throw new StateFileException(
          "cannot read " + origin + ": " + unreadable.getMessage(), unreadable);
    }
  }

  static ClusterState parse(String text, String origin) throws StateFileException {
    var services = new ArrayList<Service>();
    var slices = new ArrayList<EndpointSlice>();
    var nodes = new ArrayList<Node>();
    var ignored = new ArrayList<String>();
    int document = 0;
    try (Reader reader = new StringReader(text);
        var documents = YAML.readerFor(JsonNode.class).<JsonNode>readValues(reader)) {
      while (true) {
        JsonNode node;
        try {
          if (!documents.hasNextValue()) {
            break;
          }
          document++;
          node = documents.nextValue();
        } catch (IOException | RuntimeException syntax) {
          throw new StateFileException(
              origin
                  + ": document "
                  + Math.max(document, 1)
                  + " is not valid YAML: "
                  + firstLine(syntax),
              syntax);
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
          continue;
        }
        var where = origin + ": document " + document;
        if ("List".equals(text(node, "kind")) || node.has("items") && !node.has("kind")) {
          var items = node.get("items");
          if (items == null || items.isNull()) {
            continue;
          }
          if (!items.isArray()) {
            throw new StateFileException(where + " (List): field items must be a list", null);
          }
          for (int i = 0; i < items.size(); i++) {
            add(items.get(i), where + ", items[" + i + "]", services, slices, nodes, ignored);
          }
        } else {
          add(node, where, services, slices, nodes, ignored);
        }
      }
    } catch (IOException closing) {
      throw new StateFileException(origin + ": " + closing.getMessage(), closing);
    }
    return new ClusterState(services, slices, nodes, ignored);
  }

  private static void add(
      JsonNode node,
      String where,
      List<Service> services,
      List<EndpointSlice> slices,
      List<Node> nodes,
      List<String> ignored)
      throws StateFileException {
    if (!node.isObject()) {
      throw new StateFileException(where + " is not an object", null);
    }
    var kind = text(node, "kind");
    if (kind == null) {
      throw new StateFileException(where + ": field kind is missing", null);
    }
    switch (kind) {
      case "Service" -> services.add(convert(node, Service.class, where));
      case "EndpointSlice" -> slices.add(convert(node, EndpointSlice.class, where));
      case "Node" -> nodes.add(convert(node, Node.class, where));
      default -> ignored.add(where + ": " + kind + " ignored");
    }
  }

  private static <T extends HasMetadata> T convert(JsonNode node, Class<T> type, String where)
      throws StateFileException {
    var label = where + " (" + type.getSimpleName() + describeName(node) + ")";
    T object;
    try {
      object = OBJECTS.treeToValue(node, type);
    } catch (JsonMappingException invalid) {
      throw new StateFileException(
          label + ": field " + fieldPath(invalid) + ": " + firstLine(invalid.getOriginalMessage()),
          invalid);
    } catch (JsonProcessingException | IllegalArgumentException invalid) {
      throw new StateFileException(label + ": " + firstLine(invalid), invalid);
    }
    if (object.getMetadata() == null || object.getMetadata().getName() == null) {
      throw new StateFileException(label + ": field metadata.name is missing", null);
    }
    if (!(object instanceof Node) && object.getMetadata().getNamespace() == null) {
      // kubectl always prints it; without it two objects could not be told apart.
      throw new StateFileException(label + ": field metadata.namespace is missing", null);
    }
    return object;
  }

  private static String describeName(JsonNode node) {
    var metadata = node.get("metadata");
    if (metadata == null) {
      return "";
    }
    var namespace = text(metadata, "namespace");
    var name = text(metadata, "name");
    if (name == null) {
      return "";
    }
    return " " + (namespace == null ? "" : namespace + "/") + name;
  }

  private static String fieldPath(JsonMappingException invalid) {
    var path = new StringBuilder();
    for (var reference : invalid.getPath()) {
      if (reference.getFieldName() != null) {
        if (path.length() > 0) {
          path.append('.');
        }
        path.append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.length() == 0 ? "<root>" : path.toString();
  }

  private static String text(JsonNode node, String field) {
    var value = node.get(field);
    return value == null || !value.isTextual() ? null : value.asText();
  }

  private static String firstLine(Throwable failure) {
    return firstLine(failure.getMessage());
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "invalid";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
