package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The RFC 6902 JSON patch that turns one object into another: objects are compared field by field,
 * anything else that differs (lists included) is replaced whole. The mock applies JSON patches
 * exactly, so this is how merge and strategic merge patches reach it.
 */
public final class JsonPatch {
  private JsonPatch() {}

  public static ArrayNode between(ObjectNode from, ObjectNode to) {
    var operations = JsonNodeFactory.instance.arrayNode();
    diff(from, to, "", operations);
    return operations;
  }

  private static void diff(ObjectNode from, ObjectNode to, String path, ArrayNode operations) {
    from.fieldNames()
        .forEachRemaining(
            name -> {
              if (!to.has(name)) {
                operations.addObject().put("op", "remove").put("path", path + "/" + escape(name));
              }
            });
    to.fields()
        .forEachRemaining(
            field -> {
              var pointer = path + "/" + escape(field.getKey());
              JsonNode before = from.get(field.getKey());
              JsonNode after = field.getValue();
              if (before == null) {
                operations.addObject().put("op", "add").put("path", pointer).set("value", after);
              } else if (before instanceof ObjectNode beforeMap
                  && after instanceof ObjectNode afterMap) {
                diff(beforeMap, afterMap, pointer, operations);
              } else if (!before.equals(after)) {
                operations
                    .addObject()
                    .put("op", "replace")
                    .put("path", pointer)
                    .set("value", after);
              }
            });
  }

  /** A JSON pointer segment: "~" and "/" (common in label and annotation keys) escaped. */
  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
