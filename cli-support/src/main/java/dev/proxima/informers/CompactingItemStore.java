package dev.proxima.informers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.function.Consumer;

/**
 * An informer store that shrinks each object in place before caching it. The informer hands its
 * handlers the very instance it passed to the store, so handlers and listers see the same shrunken
 * object; a replacement object would leave them out of step, which is why this takes a consumer.
 *
 * <p>Set it with {@code informer.itemStore(...)} before the informer starts.
 */
public final class CompactingItemStore<T extends HasMetadata> extends BasicItemStore<T> {
  private final Consumer<T> shrink;

  /**
   * @param shrink changes the object in place, keeping everything its component reads; it must not
   *     fail on partial objects
   */
  public CompactingItemStore(Consumer<T> shrink) {
    super(Cache::metaNamespaceKeyFunc);
    this.shrink = shrink;
  }

  @Override
  public T put(String key, T object) {
    shrink.accept(object);
    return super.put(key, object);
  }
}
