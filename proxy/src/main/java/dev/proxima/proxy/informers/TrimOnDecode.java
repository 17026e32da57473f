package dev.proxima.proxy.informers;

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
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/**
 * The proxy's API client trims each Service, EndpointSlice and Node to what its caches keep ({@link
 * ProxyCacheTrim}) as soon as databind has built it, so a first list never holds the untrimmed
 * objects at once; fields the proxy never reads are skipped by mixins and never built (see
 * docs/architecture.md). An object the trim cannot handle (a hostile or partial one) is kept as far
 * as the trim got, so decoding never fails where databind alone would not.
 */
public final class TrimOnDecode {
  private TrimOnDecode() {}

  /**
   * What arrives typed only by its {@code kind} and {@code apiVersion}: the object of a watch event
   * (the four kinds the proxy watches, and the Status of an ERROR event, such as 410 Gone after
   * which an informer lists again). Lists and API errors are decoded into a class fabric8 names and
   * need no entry.
   */
  static final List<Class<? extends KubernetesResource>> WATCHED_KINDS =
      List.of(Service.class, EndpointSlice.class, Node.class, ServiceCIDR.class, Status.class);

  /**
   * fabric8's serialization with the trimming added, knowing only the {@link #WATCHED_KINDS} by
   * kind rather than searching the class path. An unknown kind would come as a
   * GenericKubernetesResource, decoded twice; an ERROR event's Status not at all, and an informer
   * would then retry its watch where a 410 asks it to list again.
   */
  public static KubernetesSerialization serialization() {
    return serialization(new ObjectMapper());
  }

  static KubernetesSerialization serialization(ObjectMapper mapper) {
    var serialization = new KubernetesSerialization(mapper, false);
    WATCHED_KINDS.forEach(serialization::registerKubernetesResource);
    skipUnread(mapper);
    mapper.registerModule(
        new SimpleModule("proxima-trim-on-decode").setDeserializerModifier(new Trimming()));
    return serialization;
  }

  private static final class Trimming extends BeanDeserializerModifier {
    private static final long serialVersionUID = 1L;

    @Override
    public JsonDeserializer<?> modifyDeserializer(
        DeserializationConfig config,
        BeanDescription description,
        JsonDeserializer<?> deserializer) {
      var type = description.getBeanClass();
      if (type == Service.class) {
        return new TrimmedAfterDecoding(deserializer, d -> ProxyCacheTrim.service((Service) d));
      }
      if (type == EndpointSlice.class) {
        return new TrimmedAfterDecoding(deserializer, d -> ProxyCacheTrim.slice((EndpointSlice) d));
      }
      if (type == Node.class) {
        return new TrimmedAfterDecoding(deserializer, d -> ProxyCacheTrim.node((Node) d));
      }
      return deserializer;
    }
  }

  private static final class TrimmedAfterDecoding extends DelegatingDeserializer {
    private static final long serialVersionUID = 1L;
    private final transient Consumer<Object> trim;

    TrimmedAfterDecoding(JsonDeserializer<?> databind, Consumer<Object> trim) {
      super(databind);
      this.trim = trim;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> databind) {
      return new TrimmedAfterDecoding(databind, trim);
    }

    @Override
    public Object deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      var decoded = super.deserialize(parser, context);
      if (decoded != null) {
        try {
          trim.accept(decoded);
        } catch (RuntimeException partial) {
          // Kept as far as the trim got; the planner validates what it reads.
        }
      }
      return decoded;
    }
  }

  /**
   * Fields skipped by the parser, never built: on a real cluster managed fields are often the
   * largest part of an object. Decoding only: the proxy never writes API objects back.
   */
  static void skipUnread(ObjectMapper mapper) {
    mapper.addMixIn(ObjectMeta.class, SkipBookkeeping.class);
    mapper.addMixIn(Endpoint.class, SkipEndpointDetails.class);
    mapper.addMixIn(ServiceStatus.class, SkipConditions.class);
    mapper.addMixIn(NodeStatus.class, SkipNodeDetails.class);
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

  /** What every Node's status holds and the proxy never reads; images are the largest. */
  @JsonIgnoreProperties(
      value = {"images", "conditions", "volumesAttached", "volumesInUse", "nodeInfo"},
      allowGetters = true)
  private interface SkipNodeDetails {}
}
