package dev.proxima.proxy.decode;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.proxima.proxy.runtime.TrimOnDecode;
import dev.proxima.proxy.track.ProxyCacheTrim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * What the proxy's serialization made of a Service or slice before the hand-written decoders:
 * fabric8's bean deserializers, with the same fields skipped, then the cache's trim (kept as far as
 * it got). The reference the decoders are held to.
 */
final class DatabindAndTrim {
  private final KubernetesSerialization serialization;

  DatabindAndTrim() {
    var mapper = new ObjectMapper();
    serialization = new KubernetesSerialization(mapper, true);
    TrimOnDecode.skipUnread(mapper);
  }

  Service service(String json) {
    var service = serialization.unmarshal(json, Service.class);
    try {
      ProxyCacheTrim.service(service);
    } catch (RuntimeException partial) {
      // As the old wrapper: kept as far as the trim got.
    }
    return service;
  }

  EndpointSlice slice(String json) {
    var slice = serialization.unmarshal(json, EndpointSlice.class);
    try {
      ProxyCacheTrim.slice(slice);
    } catch (RuntimeException partial) {
      // As the old wrapper: kept as far as the trim got.
    }
    return slice;
  }
}
