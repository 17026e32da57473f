package dev.proxima.proxy.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;

/**
 * Informers that call their handlers on the thread that has just changed their store, instead of
 * handing each change to the client's thread pool.
 *
 * <p>fabric8 7.8 queues one task per listed object for the handlers, whether or not they act on it,
 * and its default pool passes each task to another thread: two context switches per object. At
 * 44,000 Services that kept the second core busy for up to a second after the first list, beside
 * the first sync. The proxy's handlers only record a change and ask for a sync, so they can run
 * where the change was stored; they still run one at a time and in order: on the client's event
 * loop for a list, on its watch thread for a watch event, and on fabric8's scheduler thread for
 * each object of a resync ({@code --config-sync-period}), which the change trackers drop as
 * unchanged. The informers are not registered with the client: whoever starts one stops it.
 */
final class InlineDeliveryInformers {
  private InlineDeliveryInformers() {}

  /**
   * An informer like {@code operation.runnableInformer(resyncMillis)}, not yet started.
   *
   * @throws IllegalStateException when the client's operations cannot list and watch themselves,
   *     which a fabric8 release could change
   */
  static <T extends HasMetadata, L extends KubernetesResourceList<T>> SharedIndexInformer<T> of(
      Class<T> type, FilterWatchListDeletable<T, L, ?> operation, long resyncMillis) {
    if (!(operation instanceof ListerWatcher<?, ?> listerWatcher)) {
      throw new IllegalStateException(
          "fabric8's "
              + operation.getClass().getName()
              + " no longer lists and watches by itself; build informers with runnableInformer");
    }
    @SuppressWarnings("unchecked")
    var typed = (ListerWatcher<T, L>) listerWatcher;
    return new DefaultSharedIndexInformer<>(type, typed, resyncMillis, Runnable::run);
  }
}
