package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Applies a strategic merge patch (what {@code kubectl apply} sends for built-in kinds) to an
 * object of one of the kinds the demo serves, so the mock, which only knows JSON merge patch, can
 * store the result. Maps merge as in a JSON merge patch; the lists that Kubernetes merges by a key
 * (a Service's ports by port, a Node's taints by key, owner references by uid) merge element by
 * element; every other list is replaced whole, as it is on a real API server. The directives
 * kubectl writes are honoured: {@code $patch} (replace, delete), {@code $setElementOrder/<list>},
 * {@code $deleteFromPrimitiveList/<list>} and {@code $retainKeys}.
 */
public final class StrategicMergePatch {
  private static final String PATCH = "$patch";
  private static final String RETAIN_KEYS = "$retainKeys";
  private static final String ORDER = "$setElementOrder/";
  private static final String DELETE_PRIMITIVES = "$deleteFromPrimitiveList/";

  /** Lists merged by an element key, by field path; every kind has the metadata ones. */
  private static final Map<String, String> COMMON_KEYS = Map.of("metadata.ownerReferences", "uid");

  private static final Map<String, Map<String, String>> KEYS_BY_KIND =
      Map.of(
          "Service", Map.of("spec.ports", "port"),
          "Node",
              Map.of(
                  "spec.taints", "key",
                  "status.conditions", "type",
                  "status.addresses", "type"),
          "EndpointSlice", Map.of(),
          "Event", Map.of(),
          "Namespace", Map.of(),
          "Lease", Map.of());

  /** Lists of strings merged as sets. */
  private static final List<String> PRIMITIVE_SETS = List.of("metadata.finalizers");

  private StrategicMergePatch() {}

  /** Whether this server can apply strategic merge patches to {@code kind} faithfully. */
  public static boolean supports(String kind) {
    return KEYS_BY_KIND.containsKey(kind);
  }

  /** The object {@code current} becomes under {@code patch}; neither argument is changed. */
  public static ObjectNode apply(ObjectNode current, ObjectNode patch) {
    var kind = Optional.ofNullable(current.get("kind")).map(JsonNode::asText).orElse("");
    var keys = new java.util.HashMap<>(COMMON_KEYS);
    keys.putAll(KEYS_BY_KIND.getOrDefault(kind, Map.of()));
    var result = current.deepCopy();
    mergeMap(result, patch, "", keys);
    return result;
  }

  private static void mergeMap(
      ObjectNode target, ObjectNode patch, String path, Map<String, String> keys) {
    var directive = patch.path(PATCH).asText("");
    if (directive.equals("replace")) {
      target.removeAll();
      copyWithoutDirectives(target, patch);
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> fields = patch.fields(); fields.hasNext(); ) {
      var field = fields.next();
      var name = field.getKey();
      var value = field.getValue();
      if (name.equals(PATCH) || name.equals(RETAIN_KEYS) || name.startsWith(ORDER)) {
        continue;
      }
      if (name.startsWith(DELETE_PRIMITIVES)) {
        var list = name.substring(DELETE_PRIMITIVES.length());
        if (target.get(list) instanceof ArrayNode existing) {
          for (int i = existing.size() - 1; i >= 0; i--) {
            if (contains(value, existing.get(i))) {
              existing.remove(i);
            }
          }
        }
        continue;
      }
      var fieldPath = path.isEmpty() ? name : path + "." + name;
      if (value.isNull()) {
        target.remove(name);
      } else if (value instanceof ObjectNode patchMap) {
        if (patchMap.path(PATCH).asText("").equals("delete")) {
          target.remove(name);
        } else if (target.get(name) instanceof ObjectNode existing) {
          mergeMap(existing, patchMap, fieldPath, keys);
        } else {
          var created = JsonNodeFactory.instance.objectNode();
          mergeMap(created, patchMap, fieldPath, keys);
          target.set(name, created);
        }
      } else if (value instanceof ArrayNode patchList) {
        target.set(name, mergeList(target.get(name), patchList, fieldPath, keys));
      } else {
        target.set(name, value.deepCopy());
      }
    }
    if (patch.get(RETAIN_KEYS) instanceof ArrayNode retained) {
      target.retain(strings(retained));
    }
    for (Iterator<String> names = patch.fieldNames(); names.hasNext(); ) {
      var name = names.next();
      if (name.startsWith(ORDER) && patch.get(name) instanceof ArrayNode order) {
        var list = name.substring(ORDER.length());
        var fieldPath = path.isEmpty() ? list : path + "." + list;
        if (target.get(list) instanceof ArrayNode existing) {
          target.set(list, ordered(existing, order, keys.get(fieldPath)));
        }
      }
    }
  }

  private static ArrayNode mergeList(
      JsonNode current, ArrayNode patch, String path, Map<String, String> keys) {
    var key = keys.get(path);
    var existing = current instanceof ArrayNode list ? list.deepCopy() : null;
    if (existing == null || (key == null && !PRIMITIVE_SETS.contains(path))) {
      var replacement = JsonNodeFactory.instance.arrayNode();
      patch.forEach(
          element -> {
            if (!(element instanceof ObjectNode map && map.has(PATCH))) {
              replacement.add(withoutDirectives(element));
            }
          });
      return replacement;
    }
    if (key == null) {
      patch.forEach(
          value -> {
            if (!contains(existing, value)) {
              existing.add(value.deepCopy());
            }
          });
      return existing;
    }
    for (var element : patch) {
      if (!(element instanceof ObjectNode patchElement)) {
        continue;
      }
      int at = indexOf(existing, key, patchElement.get(key));
      var directive = patchElement.path(PATCH).asText("");
      if (directive.equals("delete")) {
        if (at >= 0) {
          existing.remove(at);
        }
      } else if (at >= 0 && !directive.equals("replace")) {
        mergeMap((ObjectNode) existing.get(at), patchElement, path, Map.of());
      } else if (at >= 0) {
        existing.set(at, withoutDirectives(patchElement));
      } else {
        existing.add(withoutDirectives(patchElement));
      }
    }
    return existing;
  }

  /** {@code list} in the order {@code order} names; elements it does not name keep theirs, last. */
  private static ArrayNode ordered(ArrayNode list, ArrayNode order, String key) {
    var remaining = new ArrayList<JsonNode>();
    list.forEach(remaining::add);
    var result = JsonNodeFactory.instance.arrayNode();
    for (var wanted : order) {
      for (var i = remaining.iterator(); i.hasNext(); ) {
        var element = i.next();
        var identity = key == null ? element : element.get(key);
        var wantedIdentity = key == null ? wanted : wanted.get(key);
        if (identity != null && identity.equals(wantedIdentity)) {
          result.add(element);
          i.remove();
          break;
        }
      }
    }
    remaining.forEach(result::add);
    return result;
  }

  private static int indexOf(ArrayNode list, String key, JsonNode value) {
    for (int i = 0; i < list.size(); i++) {
      if (value != null && value.equals(list.get(i).get(key))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean contains(JsonNode list, JsonNode value) {
    for (var element : list) {
      if (element.equals(value)) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode withoutDirectives(JsonNode node) {
    if (node instanceof ObjectNode map) {
      var copy = JsonNodeFactory.instance.objectNode();
      copyWithoutDirectives(copy, map);
      return copy;
    }
    return node.deepCopy();
  }

  private static void copyWithoutDirectives(ObjectNode target, ObjectNode source) {
    source
        .fields()
        .forEachRemaining(
            field -> {
              if (!field.getKey().startsWith("$")) {
                target.set(field.getKey(), withoutDirectives(field.getValue()));
              }
            });
  }

  private static List<String> strings(ArrayNode array) {
    var values = new ArrayList<String>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}
