package dev.proxima.proxy.decode;

import static dev.proxima.proxy.decode.JsonFields.fields;
import static dev.proxima.proxy.decode.JsonFields.metadata;
import static dev.proxima.proxy.decode.JsonFields.metadataDeserializer;
import static dev.proxima.proxy.decode.JsonFields.string;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * What the Service and EndpointSlice decoders share: refusing a value that is not an object as
 * databind refuses it, the fields every API object has (apiVersion, kind, and metadata, which the
 * mapper's own deserializer reads), and the cache's trim of what was read.
 */
abstract class TrimmedObjectDecoder<T extends HasMetadata> extends StdDeserializer<T>
    implements ResolvableDeserializer {
  private static final long serialVersionUID = 1L;
  private final transient Supplier<T> create;
  private final transient BiConsumer<T, String> setKind;
  // Jackson may resolve this shared instance again on another informer's thread.
  private transient volatile JsonDeserializer<Object> metadataDecoder;

  /**
   * @param create a new, empty object of this kind
   * @param setKind the kind's setter, which {@link HasMetadata} does not declare
   */
  TrimmedObjectDecoder(Class<T> type, Supplier<T> create, BiConsumer<T, String> setKind) {
    super(type);
    this.create = create;
    this.setKind = setKind;
  }

  /**
   * Reads one field of this kind's own (not apiVersion, kind or metadata) into {@code decoded}, the
   * parser on the field's value; skips a field the proxy does not keep.
   */
  abstract void readField(T decoded, String name, JsonParser parser, DeserializationContext context)
      throws IOException;

  /** Reads the object's fields; the parser is on its START_OBJECT or first field name. */
  final T read(JsonParser parser, DeserializationContext context) throws IOException {
    var decoded = create.get();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "apiVersion" -> decoded.setApiVersion(string(value, ctx));
            case "kind" -> setKind.accept(decoded, string(value, ctx));
            case "metadata" -> decoded.setMetadata(metadata(value, ctx, metadataDecoder));
            default -> readField(decoded, name, value, ctx);
          }
        });
    return decoded;
  }

  /** The cache's trim for this kind. */
  abstract void trim(T decoded);

  @Override
  public final void resolve(DeserializationContext context) throws JsonMappingException {
    metadataDecoder = metadataDeserializer(context);
  }

  @Override
  @SuppressWarnings("unchecked")
  public final T deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    var token = parser.currentToken();
    if (token != JsonToken.START_OBJECT
        && token != JsonToken.FIELD_NAME
        && token != JsonToken.END_OBJECT) {
      return (T) context.handleUnexpectedToken(handledType(), parser);
    }
    var decoded = read(parser, context);
    try {
      trim(decoded);
    } catch (RuntimeException partial) {
      // An object the trim cannot handle (a list with a null element, say) is kept as far as the
      // trim got, as before: decoding never fails because of the trim, and the catalog validates
      // every field it reads anyway.
    }
    return decoded;
  }
}
