package dev.proxima.proxy.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one field's value the way Jackson databind would, quickly for the shapes the API server
 * writes and by handing every other shape to databind itself: a number where a string belongs, a
 * string where a number belongs, a scalar where a list belongs. Whatever databind makes of such a
 * value (a coercion or an exception that fails the decode) is then exactly what the hand-written
 * decoders make of it, without repeating its coercion rules here. Tenants write the objects, so
 * every one of those shapes can arrive.
 *
 * <p>Each method starts on the value's first token and leaves the parser on its last one.
 */
final class JsonFields {
  private JsonFields() {}

  /** Reads one JSON object with the parser on its first token (START_OBJECT). */
  @FunctionalInterface
  interface ObjectReader<T> {
    T read(JsonParser parser, DeserializationContext context) throws IOException;
  }

  /** Receives one field of an object, the parser on the field's value. */
  @FunctionalInterface
  interface FieldReader {
    void read(String name, JsonParser parser, DeserializationContext context) throws IOException;
  }

  /**
   * Calls {@code field} for every field of the object whose START_OBJECT the parser is on, or whose
   * first field name it is on (databind hands a decoder either).
   */
  static void fields(JsonParser parser, DeserializationContext context, FieldReader field)
      throws IOException {
    var token = parser.currentToken();
    if (token == JsonToken.START_OBJECT) {
      token = parser.nextToken();
    }
    for (; token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
      var name = parser.currentName();
      parser.nextToken();
      field.read(name, parser, context);
    }
    if (token != JsonToken.END_OBJECT) {
      context.handleUnexpectedToken(Object.class, parser);
    }
  }

  /** Skips a field the proxy does not keep, whatever its shape. */
  static void skip(JsonParser parser) throws IOException {
    parser.skipChildren();
  }

  static String string(JsonParser parser, DeserializationContext context) throws IOException {
    return switch (parser.currentToken()) {
      case VALUE_STRING -> parser.getText();
      case VALUE_NULL -> null;
      default -> context.readValue(parser, String.class);
    };
  }

  static Integer integer(JsonParser parser, DeserializationContext context) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT
        && parser.getNumberType() == JsonParser.NumberType.INT) {
      return parser.getIntValue();
    }
    return parser.currentToken() == JsonToken.VALUE_NULL
        ? null
        : context.readValue(parser, Integer.class);
  }

  static Boolean bool(JsonParser parser, DeserializationContext context) throws IOException {
    return switch (parser.currentToken()) {
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> context.readValue(parser, Boolean.class);
    };
  }

  /** A nested object: read by hand when it is one, null when null, else databind's to judge. */
  static <T> T object(
      JsonParser parser, DeserializationContext context, Class<T> type, ObjectReader<T> reader)
      throws IOException {
    return switch (parser.currentToken()) {
      case START_OBJECT -> reader.read(parser, context);
      case VALUE_NULL -> null;
      default -> context.readValue(parser, type);
    };
  }

  static List<String> strings(JsonParser parser, DeserializationContext context)
      throws IOException {
    return switch (parser.currentToken()) {
      case START_ARRAY -> {
        var list = new ArrayList<String>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          list.add(string(parser, context));
        }
        yield list;
      }
      case VALUE_NULL -> null;
      default -> context.readValue(parser, listOf(context, String.class));
    };
  }

  /** A list of objects; its null elements stay null, as databind keeps them. */
  static <T> List<T> objects(
      JsonParser parser, DeserializationContext context, Class<T> type, ObjectReader<T> reader)
      throws IOException {
    return switch (parser.currentToken()) {
      case START_ARRAY -> {
        var list = new ArrayList<T>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          list.add(object(parser, context, type, reader));
        }
        yield list;
      }
      case VALUE_NULL -> null;
      default -> context.readValue(parser, listOf(context, type));
    };
  }

  /** A map of strings, such as labels; databind's own map type for it is a LinkedHashMap too. */
  static Map<String, String> stringMap(JsonParser parser, DeserializationContext context)
      throws IOException {
    return switch (parser.currentToken()) {
      case START_OBJECT -> {
        var map = new LinkedHashMap<String, String>();
        fields(parser, context, (name, value, ignored) -> map.put(name, string(value, context)));
        yield map;
      }
      case VALUE_NULL -> null;
      default ->
          context.readValue(
              parser,
              context.getTypeFactory().constructMapType(Map.class, String.class, String.class));
    };
  }

  /**
   * Metadata is left to databind's own deserializer for it (with the serialization's mixin that
   * skips managed fields and owner references): reading it by hand measured no quicker, and
   * databind keeps up with every field a new model version adds.
   */
  static ObjectMeta metadata(
      JsonParser parser, DeserializationContext context, JsonDeserializer<Object> metadata)
      throws IOException {
    return parser.currentToken() == JsonToken.VALUE_NULL
        ? null
        : (ObjectMeta) metadata.deserialize(parser, context);
  }

  /** The mapper's deserializer for metadata, looked up once per decoder. */
  static JsonDeserializer<Object> metadataDeserializer(DeserializationContext context)
      throws JsonMappingException {
    return context.findRootValueDeserializer(context.constructType(ObjectMeta.class));
  }

  private static JavaType listOf(DeserializationContext context, Class<?> element) {
    return context.getTypeFactory().constructCollectionType(List.class, element);
  }
}
