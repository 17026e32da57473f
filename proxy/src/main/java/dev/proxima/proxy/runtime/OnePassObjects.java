package dev.proxima.proxy.runtime;

import dev.proxima.proxy.informers.ProxyCache;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The cache's Services and slices, taken once per sync pass and only when a full sync asks for
 * them, so the families of a pass plan from the same objects.
 */
final class OnePassObjects implements Supplier<OnePassObjects.Objects> {
  record Objects(Collection<Service> services, Collection<EndpointSlice> slices) {}

  private final ProxyCache cache;
  private Objects objects;

  OnePassObjects(ProxyCache cache) {
    this.cache = cache;
  }

  @Override
  public Objects get() {
    if (objects == null) {
      objects = new Objects(cache.services(), cache.endpointSlices());
    }
    return objects;
  }
}
