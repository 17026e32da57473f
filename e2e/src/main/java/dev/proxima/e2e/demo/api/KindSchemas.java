package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Collection;
import java.util.Map;

/**
 * OpenAPI v3 schemas of the served kinds for {@code kubectl explain}: every field's name and type,
 * read from the Java model the demo stores objects in, and no field's meaning. The demo has no
 * documentation of the Kubernetes API to give (and writes none of its own), so each description
 * says where to read it: {@code kubectl explain} against a real cluster.
 *
 * <p>The patch operations in the same documents declare no strategic merge patch body, so kubectl
 * apply still computes its patches from its compiled-in types, not from these schemas.
 */
final class KindSchemas {
  static final String KIND_DESCRIPTION =
      "The Proxima demo API server lists this kind's fields and their types, not what they"
          + " mean. For the documentation, run kubectl explain against a real cluster, or read"
          + " the Kubernetes API reference.";
  static final String FIELD_DESCRIPTION =
      "Not documented by the demo API server: run kubectl explain against a real cluster.";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String REF_PREFIX = "#/components/schemas/";

  private static final Map<String, Class<?>> MODELS =
      Map.of(
          "/v1/Namespace", io.fabric8.kubernetes.api.model.Namespace.class,
          "/v1/Node", io.fabric8.kubernetes.api.model.Node.class,
          "/v1/Service", io.fabric8.kubernetes.api.model.Service.class,
          "/v1/Endpoints", io.fabric8.kubernetes.api.model.Endpoints.class,
          "/v1/Event", io.fabric8.kubernetes.api.model.Event.class,
          "/v1/Pod", io.fabric8.kubernetes.api.model.Pod.class,
          "discovery.k8s.io/v1/EndpointSlice",
              io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice.class,
          "coordination.k8s.io/v1/Lease",
              io.fabric8.kubernetes.api.model.coordination.v1.Lease.class);

  private final ObjectNode schemas;

  private KindSchemas(ObjectNode schemas) {
    this.schemas = schemas;
  }

  /**
   * Adds the schema of {@code resource}'s kind, and of every type its fields use, to {@code
   * schemas} (a document's {@code components.schemas}).
   */
  static void add(ObjectNode schemas, ApiResource resource) {
    var model = MODELS.get(resource.group() + "/" + resource.version() + "/" + resource.kind());
    if (model == null) {
      return;
    }
    var kinds = new KindSchemas(schemas);
    var name = kinds.define(JSON.constructType(model));
    var kind = (ObjectNode) schemas.get(name);
    kind.put("description", KIND_DESCRIPTION);
    kind.putArray("x-kubernetes-group-version-kind")
        .addObject()
        .put("group", resource.group())
        .put("version", resource.version())
        .put("kind", resource.kind());
  }

  /** The component named after {@code type}, defined once per document; returns its name. */
  private String define(JavaType type) {
    var name = type.getRawClass().getName();
    if (schemas.has(name)) {
      return name;
    }
    var schema = schemas.putObject(name);
    schema.put("type", "object");
    var properties = schema.putObject("properties");
    var bean = JSON.getSerializationConfig().introspect(type);
    for (var property : bean.findProperties()) {
      if (property.couldSerialize()) {
        var field = properties.putObject(property.getName());
        describe(field, property.getPrimaryType());
        field.put("description", FIELD_DESCRIPTION);
      }
    }
    return name;
  }

  /** The type of a field (or of an item or a map value) as explain prints it. */
  private void describe(ObjectNode field, JavaType type) {
    var raw = type.getRawClass();
    if (type.isCollectionLikeType() || type.isArrayType()) {
      field.put("type", "array");
      describe(field.putObject("items"), type.getContentType());
    } else if (type.isMapLikeType()) {
      field.put("type", "object");
      describe(field.putObject("additionalProperties"), type.getContentType());
    } else if (raw == String.class
        || raw.isEnum()
        || raw == Quantity.class
        || raw == MicroTime.class) {
      field.put("type", "string");
    } else if (raw == IntOrString.class) {
      field.put("type", "string").put("format", "int-or-string");
    } else if (raw == Boolean.class || raw == boolean.class) {
      field.put("type", "boolean");
    } else if (raw == Integer.class || raw == int.class) {
      field.put("type", "integer").put("format", "int32");
    } else if (raw == Long.class || raw == long.class) {
      field.put("type", "integer").put("format", "int64");
    } else if (Number.class.isAssignableFrom(raw) || raw == double.class) {
      field.put("type", "number");
    } else if (raw.getName().startsWith("io.fabric8.kubernetes.api.model.")
        && !Collection.class.isAssignableFrom(raw)) {
      field.putArray("allOf").addObject().put("$ref", REF_PREFIX + define(type));
    } else {
      field.put("type", "object");
    }
  }
}
