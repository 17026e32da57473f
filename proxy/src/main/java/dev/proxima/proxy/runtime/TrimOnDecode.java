package dev.proxima.proxy.runtime;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.proxima.proxy.track.ProxyCacheTrim;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * The proxy's API client trims each Service and EndpointSlice as soon as it is decoded, not when
 * the informer caches it. A first list holds every decoded object of the response until the last
 * one is read; trimmed one by one, what the proxy never reads (and the spare room decoding leaves)
 * dies young instead of being promoted with the list, which at 10,000 Services × 10 endpoints kept
 * tens of MiB in the old generation and cost a series of full collections during a cold start
 * (docs/benchmarks.md, targets 1 and 6).
 *
 * <p>The informers' {@code CompactingItemStore} still trims what reaches the caches by any other
 * path (a second trim of the same object does no work). An object the trim cannot handle (a hostile
 * or partial one) is kept as far as the trim got, so decoding never fails where it did not before.
 */
public final class TrimOnDecode {
  private TrimOnDecode() {}

  /** fabric8's serialization with the trimming deserializers added to its object mapper. */
  public static KubernetesSerialization serialization() {
    var mapper = new ObjectMapper();
    var serialization = new KubernetesSerialization(mapper, true);
    // Skipped by the parser, never built: on a real cluster managed fields are often the largest
    // part of an object. Decoding only: the proxy never writes API objects back.
    mapper.addMixIn(ObjectMeta.class, SkipBookkeeping.class);
    mapper.addMixIn(Endpoint.class, SkipEndpointDetails.class);
    mapper.addMixIn(ServiceStatus.class, SkipConditions.class);
    // After fabric8 has configured the mapper, so these wrap its deserializers, not the reverse.
    mapper.registerModule(
        new SimpleModule("proxima-trim-on-decode").setDeserializerModifier(new Modifier()));
    return serialization;
  }

  @JsonIgnoreProperties(
      value = {"managedFields", "ownerReferences"},
      allowGetters = true)
  private interface SkipBookkeeping {}

  @JsonIgnoreProperties(
      value = {"targetRef", "hostname", "deprecatedTopology"},
      allowGetters = true)
  private interface SkipEndpointDetails {}

  @JsonIgnoreProperties(value = "conditions", allowGetters = true)
  private interface SkipConditions {}

  private static final class Modifier extends BeanDeserializerModifier {
    @Override
    public JsonDeserializer<?> modifyDeserializer(
        DeserializationConfig config, BeanDescription description, JsonDeserializer<?> decoder) {
      var type = description.getBeanClass();
      if (type == Service.class) {
        return new Trimming<>(decoder, Service.class, ProxyCacheTrim::service);
      }
      if (type == EndpointSlice.class) {
        return new Trimming<>(decoder, EndpointSlice.class, ProxyCacheTrim::slice);
      }
      return decoder;
    }
  }

  private static final class Trimming<T> extends DelegatingDeserializer {
    private static final long serialVersionUID = 1L;
    private final Class<T> type;
    private final transient Consumer<T> trim;

    Trimming(JsonDeserializer<?> decoder, Class<T> type, Consumer<T> trim) {
      super(decoder);
      this.type = type;
      this.trim = trim;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> decoder) {
      return new Trimming<>(decoder, type, trim);
    }

    @Override
    public Object deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      var value = super.deserialize(parser, context);
      if (type.isInstance(value)) {
        try {
          trim.accept(type.cast(value));
        } catch (RuntimeException partial) {
          // Kept as far as the trim got: the catalog validates every field it reads anyway.
        }
      }
      return value;
    }
  }
}
