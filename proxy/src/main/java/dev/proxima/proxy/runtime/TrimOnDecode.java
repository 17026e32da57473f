package dev.proxima.proxy.runtime;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.proxima.proxy.decode.EndpointSliceDecoder;
import dev.proxima.proxy.decode.ServiceDecoder;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;

/**
 * The proxy's API client decodes each Service and EndpointSlice straight into what its caches keep
 * ({@link ServiceDecoder}, {@link EndpointSliceDecoder}), not whole and then trimmed when the
 * informer caches it. A first list holds every decoded object of the response until the last one is
 * read; trimmed one by one, what the proxy never reads (and the spare room decoding leaves) dies
 * young instead of being promoted with the list, which at 10,000 Services × 10 endpoints kept tens
 * of MiB in the old generation and cost a series of full collections during a cold start
 * (docs/performance.md: new node, memory). Decoding by hand also spares the cold JVM databind's
 * introspection of the model classes: about 0.1 s of a cold start's list phase and more of its CPU.
 *
 * <p>The informers' {@code CompactingItemStore} still trims what reaches the caches by any other
 * path (a second trim of the same object does no work). An object the trim cannot handle (a hostile
 * or partial one) is kept as far as the trim got, so decoding never fails where it did not before.
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
   * fabric8's serialization with the proxy's decoders added to its object mapper. It knows only the
   * {@link #WATCHED_KINDS} by kind: told to search the class path instead, fabric8 loads every
   * model class its jars list the first time it decodes a watch event (about 0.2 s in a cold JVM, a
   * kubeconfig is parsed without it too). An object of a kind it does not know comes as a
   * GenericKubernetesResource, which fabric8 decodes a second time into the informer's class; an
   * ERROR event's Status it would not know at all, and an informer would then retry its watch where
   * a 410 asks it to list again.
   */
  public static KubernetesSerialization serialization() {
    var mapper = new ObjectMapper();
    var serialization = new KubernetesSerialization(mapper, false);
    WATCHED_KINDS.forEach(serialization::registerKubernetesResource);
    skipUnread(mapper);
    mapper.registerModule(
        new SimpleModule("proxima-trim-on-decode")
            .addDeserializer(Service.class, new ServiceDecoder())
            .addDeserializer(EndpointSlice.class, new EndpointSliceDecoder()));
    return serialization;
  }

  /**
   * Fields skipped by the parser, never built: on a real cluster managed fields are often the
   * largest part of an object. Decoding only: the proxy never writes API objects back. The two
   * decoders skip the endpoint details and status conditions themselves and leave metadata to
   * databind, so this applies to them too. Public for the decoders' tests, which hold them to what
   * databind makes of an object under the same mixins.
   */
  public static void skipUnread(ObjectMapper mapper) {
    mapper.addMixIn(ObjectMeta.class, SkipBookkeeping.class);
    mapper.addMixIn(Endpoint.class, SkipEndpointDetails.class);
    mapper.addMixIn(ServiceStatus.class, SkipConditions.class);
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
}
