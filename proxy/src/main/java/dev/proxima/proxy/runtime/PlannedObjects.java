package dev.proxima.proxy.runtime;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.track.ObjectVersions;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a sync planned its Services from, for the saved ruleset beside what it loaded: the digest of
 * everything besides the Services that the plan reads (the basis), and the object revisions of the
 * Service keys it planned ({@link ObjectVersions}).
 *
 * @param stamps the keys' stamps (a null stamp: nothing left of the key); computed when the saved
 *     file is written, off the sync's path
 * @param whole true when the stamps cover every key (a full sync), false when only the keys a
 *     partial sync planned
 */
public record PlannedObjects(String basis, Supplier<Map<ObjectKey, String>> stamps, boolean whole) {
  /** Every Service and slice a full sync planned from, as its pass stamps them, once. */
  public static PlannedObjects every(String basis, ObjectVersions.Snapshot planned) {
    return new PlannedObjects(basis, planned.stamping(), true);
  }

  /** The stamps of the keys a partial sync planned. */
  public static PlannedObjects some(String basis, Map<ObjectKey, String> stamps) {
    return new PlannedObjects(basis, () -> stamps, false);
  }
}
