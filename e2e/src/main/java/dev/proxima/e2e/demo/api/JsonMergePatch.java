package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * RFC 7396 JSON merge patch. The mock has its own, but it appends to lists instead of replacing
 * them, so a patch of a Service's ports would duplicate them.
 */
public final class JsonMergePatch {
  private JsonMergePatch() {}

  /** The object {@code current} becomes under {@code patch}; neither argument is changed. */
  public static ObjectNode apply(ObjectNode current, ObjectNode patch) {
    var result = current.deepCopy();
    merge(result, patch);
    return result;
  }

  private static void merge(ObjectNode target, ObjectNode patch) {
    patch
        .fields()
        .forEachRemaining(
            field -> {
              JsonNode value = field.getValue();
              if (value.isNull()) {
                target.remove(field.getKey());
              } else if (value instanceof ObjectNode patchMap) {
                var existing =
                    target.get(field.getKey()) instanceof ObjectNode map
                        ? map
                        : JsonNodeFactory.instance.objectNode();
                merge(existing, patchMap);
                target.set(field.getKey(), existing);
              } else {
                target.set(field.getKey(), value.deepCopy());
              }
            });
  }
}
