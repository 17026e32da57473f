package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.proxima.proxy.testing.ClusterObjects;
import dev.proxima.proxy.track.PendingChanges;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Services' and the slices' first lists are decoded on two threads, not one after the other:
 * fabric8's Vert.x client hands a response to the event loop of the thread that sent the request.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class FirstListsInParallelTest {
  KubernetesClient client;

  /** The threads that decoded a list's Services and slices. */
  private final Set<String> servicesDecodedOn = ConcurrentHashMap.newKeySet();

  private final Set<String> slicesDecodedOn = ConcurrentHashMap.newKeySet();
  private KubernetesClient proxyClient;
  private KubeProxyCache cache;

  @AfterEach
  void stop() {
    if (cache != null) {
      cache.close();
    }
    if (proxyClient != null) {
      proxyClient.close();
    }
  }

  @Test
  void theCacheDecodesTheFirstListsOfServicesAndSlicesOnTwoThreads() {
    client.resource(ClusterObjects.node("node-a", "zone-a")).create();
    client.resource(ClusterObjects.service("shop", "web", "10.96.0.20")).create();
    client.resource(ClusterObjects.slice("shop", "web", "node-a", "10.244.1.5")).create();
    proxyClient =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withKubernetesSerialization(recordingWhereItDecodes())
            .build();
    cache =
        new KubeProxyCache(
            proxyClient,
            "node-a",
            Duration.ZERO,
            new PendingChanges(Instant.EPOCH),
            new KubeProxyCache.Listener() {
              @Override
              public void serviceEvent(int pendingServices) {}

              @Override
              public void endpointsEvent(int pendingSlices) {}

              @Override
              public void nodeEvent() {}
            },
            null);

    cache.start().join();

    await().until(cache::hasSynced);
    assertThat(servicesDecodedOn).hasSize(1);
    assertThat(slicesDecodedOn).hasSize(1).doesNotContainAnyElementsOf(servicesDecodedOn);
  }

  /** The proxy's serialization, noting the thread each Service and slice is decoded on. */
  private KubernetesSerialization recordingWhereItDecodes() {
    var mapper = new ObjectMapper();
    mapper.registerModule(
        new SimpleModule("recording")
            .setDeserializerModifier(
                new BeanDeserializerModifier() {
                  @Override
                  public JsonDeserializer<?> modifyDeserializer(
                      DeserializationConfig config,
                      BeanDescription description,
                      JsonDeserializer<?> deserializer) {
                    var type = description.getBeanClass();
                    if (type == Service.class) {
                      return new Recording(deserializer, servicesDecodedOn);
                    }
                    if (type == EndpointSlice.class) {
                      return new Recording(deserializer, slicesDecodedOn);
                    }
                    return deserializer;
                  }
                }));
    return TrimOnDecode.serialization(mapper);
  }

  private static final class Recording extends DelegatingDeserializer {
    private final transient Set<String> threads;

    Recording(JsonDeserializer<?> decoder, Set<String> threads) {
      super(decoder);
      this.threads = threads;
    }

    @Override
    protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> decoder) {
      return new Recording(decoder, threads);
    }

    @Override
    public Object deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      // A list's items, not a watch event's object (the mock's watches replay every object).
      var where = parser.getParsingContext();
      if (where.inArray() || (where.getParent() != null && where.getParent().inArray())) {
        threads.add(Thread.currentThread().getName());
      }
      return super.deserialize(parser, context);
    }
  }
}
