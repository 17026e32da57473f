package dev.proxima.proxy.decode;

import static dev.proxima.proxy.decode.JsonFields.fields;
import static dev.proxima.proxy.decode.JsonFields.longInteger;
import static dev.proxima.proxy.decode.JsonFields.skip;
import static dev.proxima.proxy.decode.JsonFields.string;
import static dev.proxima.proxy.decode.JsonFields.stringMap;
import static dev.proxima.proxy.decode.JsonFields.strings;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.io.IOException;

/**
 * Reads an object's metadata as databind would, but for managed fields and owner references, which
 * are skipped unread as the proxy's serialization skips them for every kind.
 */
final class ObjectMetaFields {
  private ObjectMetaFields() {}

  static ObjectMeta read(JsonParser parser, DeserializationContext context) throws IOException {
    var metadata = new ObjectMeta();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "name" -> metadata.setName(string(value, ctx));
            case "namespace" -> metadata.setNamespace(string(value, ctx));
            case "uid" -> metadata.setUid(string(value, ctx));
            case "resourceVersion" -> metadata.setResourceVersion(string(value, ctx));
            case "generation" -> metadata.setGeneration(longInteger(value, ctx));
            case "creationTimestamp" -> metadata.setCreationTimestamp(string(value, ctx));
            case "deletionTimestamp" -> metadata.setDeletionTimestamp(string(value, ctx));
            case "deletionGracePeriodSeconds" ->
                metadata.setDeletionGracePeriodSeconds(longInteger(value, ctx));
            case "labels" -> metadata.setLabels(stringMap(value, ctx));
            case "annotations" -> metadata.setAnnotations(stringMap(value, ctx));
            case "finalizers" -> metadata.setFinalizers(strings(value, ctx));
            case "generateName" -> metadata.setGenerateName(string(value, ctx));
            case "selfLink" -> metadata.setSelfLink(string(value, ctx));
            default -> skip(value);
          }
        });
    return metadata;
  }
}
