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
 * The proxy's API client trims each Service, EndpointSlice and Node ({@link ProxyCacheTrim}) as
 * soon as databind built it, so a first list never holds the untrimmed objects at once; mixins skip
 * fields never read. An object the trim cannot handle is kept as far as it got: decoding never
 * fails where databind alone would not.
 */
public final class TrimOnDecode {
  private TrimOnDecode() {}

  /** What a watch event types only by kind: the watched kinds, and an ERROR event's Status. */
  static final List<Class<? extends KubernetesResource>> WATCHED_KINDS =
      List.of(Service.class, EndpointSlice.class, Node.class, ServiceCIDR.class, Status.class);

  /**
   * fabric8's serialization with the trimming, knowing only the {@link #WATCHED_KINDS} rather than
   * searching the class path. Without an entry a kind is decoded twice, and an ERROR event's Status
   * not at all, so an informer would retry its watch where a 410 asks it to list again.
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

  /** Managed fields are often an object's largest part; the proxy never writes objects back. */
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
