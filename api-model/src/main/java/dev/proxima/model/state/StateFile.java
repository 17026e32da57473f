package dev.proxima.model.state;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads cluster state as {@code kubectl get -o yaml} (or {@code -o json}) prints it: one {@code
 * List}, a multi-document YAML stream of objects or Lists, or concatenated JSON objects.
 *
 * <p>The file is streamed: a List's items are read one at a time and turned into model objects, so
 * neither the text nor a tree of the whole file is ever held, and a file of any size is accepted.
 * Errors name the document, the line, the object and the field, because operators feed this files
 * they exported by hand.
 */
public final class StateFile {
  // SnakeYAML refuses documents over 3 MiB code points by default; an export of a big cluster is
  // one document (a List) of tens of megabytes, and memory is bounded by the objects kept anyway.
  private static final YAMLFactory YAML =
      YAMLFactory.builder().loaderOptions(unlimitedDocuments()).build();
  private static final JsonFactory JSON = new JsonFactory();
  // fabric8's model classes carry their own Jackson annotations; a plain mapper keeps field paths.
  private static final ObjectMapper OBJECTS = new ObjectMapper();

  private StateFile() {}

  public static ClusterState load(Path path) throws StateFileException {
    try (var stream = Files.newInputStream(path)) {
      return load(stream, path.toString());
    } catch (NoSuchFileException missing) {
      throw new StateFileException("state file " + path + " does not exist", missing);
    } catch (AccessDeniedException denied) {
      throw new StateFileException(
          "cannot read state file " + path + ": permission denied", denied);
    } catch (IOException unreadable) {
      throw new StateFileException(
          "cannot read state file " + path + ": " + unreadable.getMessage(), unreadable);
    }
  }

  public static ClusterState load(InputStream stream, String origin) throws StateFileException {
    var buffered = new BufferedInputStream(stream, 1 << 16);
    try {
      var factory = looksLikeJson(buffered) ? JSON : YAML;
      try (var parser = factory.createParser(buffered)) {
        return new Reading(parser, origin, factory == JSON ? "JSON" : "YAML").all();
      }
    } catch (IOException unreadable) {
      throw new StateFileException(
          "cannot read " + origin + ": " + unreadable.getMessage(), unreadable);
    }
  }

  static ClusterState parse(String text, String origin) throws StateFileException {
    return load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), origin);
  }

  private static LoaderOptions unlimitedDocuments() {
    var options = new LoaderOptions();
    options.setCodePointLimit(Integer.MAX_VALUE);
    return options;
  }

  /** kubectl's JSON starts with a brace; YAML (of which JSON is a subset) is the fallback. */
  private static boolean looksLikeJson(BufferedInputStream stream) throws IOException {
    stream.mark(1 << 12);
    try {
      for (int i = 0; i < 1 << 12; i++) {
        int next = stream.read();
        if (next < 0) {
          return false;
        }
        if (!Character.isWhitespace(next) && next != 0xEF && next != 0xBB && next != 0xBF) {
          return next == '{';
        }
      }
      return false;
    } finally {
      stream.reset();
    }
  }

  /** One pass over one file. */
  private static final class Reading {
    private final JsonParser parser;
    private final String origin;
    private final String format;
    private final List<Service> services = new ArrayList<>();
    private final List<EndpointSlice> slices = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();
    private final List<ServiceCIDR> serviceCidrs = new ArrayList<>();
    private final List<String> ignored = new ArrayList<>();
    private int document;

    Reading(JsonParser parser, String origin, String format) {
      this.parser = parser;
      this.origin = origin;
      this.format = format;
    }

    ClusterState all() throws StateFileException {
      JsonToken token;
      while ((token = next()) != null) {
        document++;
        if (token == JsonToken.VALUE_NULL) {
          continue; // an empty document between two `---`
        }
        var base = origin + ": document " + document;
        var where = base + " (line " + line() + ")";
        if (token != JsonToken.START_OBJECT) {
          throw new StateFileException(where + " is not an object", null);
        }
        readDocument(base, where);
      }
      return new ClusterState(services, slices, nodes, serviceCidrs, ignored);
    }

    /**
     * Reads one document's fields; an {@code items} array is consumed item by item as it streams
     * past (kubectl prints it before {@code kind}), anything else is kept as a small tree.
     */
    private void readDocument(String base, String where) throws StateFileException {
      var fields = OBJECTS.createObjectNode();
      int items = -1;
      while (next() == JsonToken.FIELD_NAME) {
        var name = currentName();
        var value = next();
        if ("items".equals(name) && value == JsonToken.START_ARRAY) {
          items = 0;
          while (next() != JsonToken.END_ARRAY) {
            var itemWhere = base + ", items[" + items + "] (line " + line() + ")";
            add(tree(), itemWhere);
            items++;
          }
        } else {
          fields.set(name, tree());
        }
      }
      var kind = text(fields, "kind");
      boolean list =
          items >= 0
              || "List".equals(kind)
              || kind != null && kind.endsWith("List")
              || kind == null && fields.has("items");
      if (!list) {
        add(fields, where);
        return;
      }
      if (kind != null && !kind.endsWith("List")) {
        throw new StateFileException(where + ": a " + kind + " cannot have items", null);
      }
      var leftover = fields.get("items");
      if (items < 0 && leftover != null && !leftover.isNull()) {
        throw new StateFileException(where + " (List): field items must be a list", null);
      }
    }

    private void add(JsonNode node, String where) throws StateFileException {
      if (!node.isObject()) {
        throw new StateFileException(where + " is not an object", null);
      }
      var kind = text(node, "kind");
      if (kind == null) {
        throw new StateFileException(where + ": field kind is missing", null);
      }
      switch (kind) {
        case "Service" -> services.add(convert((ObjectNode) node, Service.class, where));
        case "EndpointSlice" -> slices.add(convert((ObjectNode) node, EndpointSlice.class, where));
        case "Node" -> nodes.add(convert((ObjectNode) node, Node.class, where));
        case "ServiceCIDR" ->
            serviceCidrs.add(convert((ObjectNode) node, ServiceCIDR.class, where));
        default -> ignored.add(where + ": " + kind + " ignored");
      }
    }

    private JsonToken next() throws StateFileException {
      try {
        return parser.nextToken();
      } catch (IOException | RuntimeException syntax) {
        throw syntaxError(syntax);
      }
    }

    private String currentName() throws StateFileException {
      try {
        return parser.currentName();
      } catch (IOException syntax) {
        throw syntaxError(syntax);
      }
    }

    private JsonNode tree() throws StateFileException {
      try {
        JsonNode node = OBJECTS.readTree(parser);
        return node == null ? OBJECTS.nullNode() : node;
      } catch (IOException | RuntimeException syntax) {
        throw syntaxError(syntax);
      }
    }

    private StateFileException syntaxError(Exception syntax) {
      JsonLocation at =
          syntax instanceof JsonProcessingException located && located.getLocation() != null
              ? located.getLocation()
              : parser.currentLocation();
      var message =
          syntax instanceof JsonProcessingException located
              ? located.getOriginalMessage()
              : syntax.getMessage();
      return new StateFileException(
          origin
              + ": document "
              + Math.max(document, 1)
              + " is not valid "
              + format
              + " at line "
              + at.getLineNr()
              + ", column "
              + at.getColumnNr()
              + ": "
              + problem(message),
          syntax);
    }

    private int line() {
      return parser.currentTokenLocation().getLineNr();
    }
  }

  private static <T extends HasMetadata> T convert(ObjectNode node, Class<T> type, String where)
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
      throw new StateFileException(label + ": " + firstLine(invalid.getMessage()), invalid);
    }
    if (object.getMetadata() == null || object.getMetadata().getName() == null) {
      throw new StateFileException(label + ": field metadata.name is missing", null);
    }
    boolean clusterScoped = object instanceof Node || object instanceof ServiceCIDR;
    if (!clusterScoped && object.getMetadata().getNamespace() == null) {
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

  /** SnakeYAML's message without its quoted source lines and markers: the context and problem. */
  private static String problem(String message) {
    if (message == null) {
      return "invalid";
    }
    var parts =
        message
            .lines()
            .filter(line -> !line.isBlank() && !Character.isWhitespace(line.charAt(0)))
            .toList();
    return parts.isEmpty() ? firstLine(message) : String.join("; ", parts);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "invalid";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
