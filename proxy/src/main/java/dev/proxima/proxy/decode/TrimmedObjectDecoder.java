package dev.proxima.proxy.decode;

import static dev.proxima.proxy.decode.JsonFields.metadataDeserializer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * What the Service and EndpointSlice decoders share: refusing a value that is not an object as
 * databind refuses it, the mapper's deserializer for metadata, and the cache's trim of what was
 * read.
 */
abstract class TrimmedObjectDecoder<T> extends StdDeserializer<T>
    implements ResolvableDeserializer {
  private static final long serialVersionUID = 1L;
  private transient JsonDeserializer<Object> metadataDecoder;

  TrimmedObjectDecoder(Class<T> type) {
    super(type);
  }

  /** Reads the object's fields; the parser is on its START_OBJECT or first field name. */
  abstract T read(JsonParser parser, DeserializationContext context) throws IOException;

  /** The cache's trim for this kind. */
  abstract void trim(T decoded);

  /** The mapper's deserializer for metadata, with the serialization's mixins. */
  final JsonDeserializer<Object> metadataDecoder() {
    return metadataDecoder;
  }

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
