package dev.proxima.proxy.runtime;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.track.ObjectVersions;
import java.lang.ref.WeakReference;
import java.util.Map;

/**
 * The saved stamps of both families' files, as one instance when they are equal, which they usually
 * are: each family saves the stamps of the same objects. A restart's first sync compares the
 * objects with the first family's stamps and then finds the second's to be the very same, instead
 * of comparing 44,000 entries of each on the sync thread; the files are compared here, while the
 * informers list, on the thread that read the second.
 */
final class FamiliesSavedStamps {
  /** Weak: once the families' first syncs drop their stamps, this keeps none alive. */
  private WeakReference<ObjectVersions.Saved> first = new WeakReference<>(null);

  /** {@code read}, counted; the instance handed out earlier when that one's stamps are equal. */
  synchronized ObjectVersions.Saved share(Map<ObjectKey, String> read) {
    var earlier = first.get();
    if (earlier != null && earlier.stamps().equals(read)) {
      return earlier;
    }
    var counted = ObjectVersions.Saved.of(read);
    if (earlier == null) {
      first = new WeakReference<>(counted);
    }
    return counted;
  }
}
