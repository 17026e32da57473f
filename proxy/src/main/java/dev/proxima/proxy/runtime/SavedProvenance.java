package dev.proxima.proxy.runtime;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.render.nft.SavedRuleset;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the saved file says the table was planned from (its basis and each Service key's object
 * revisions) as the file will hold it once every write handed to the saving thread is done: the
 * lines a sync appends are the difference from it, and a file written whole holds all of it. Used
 * on the saving thread only.
 */
final class SavedProvenance {
  private String basis;
  private Map<ObjectKey, String> versions = new HashMap<>();

  /** Takes up what a file read back holds. */
  void adopt(String basis, Map<ObjectKey, String> versions) {
    this.basis = basis;
    this.versions = new HashMap<>(versions);
  }

  /** The lines that bring the file from what it holds to {@code planned}; empty for none. */
  String changes(PlannedObjects planned) {
    var out = new StringBuilder();
    apply(planned, out);
    return out.toString();
  }

  /** Everything a file written whole says of the table's provenance, once {@code planned} is in. */
  String whole(PlannedObjects planned) {
    apply(planned, null);
    var out = new StringBuilder(64 + versions.size() * 48);
    SavedRuleset.provenance(basis, versions, out);
    return out.toString();
  }

  /** Takes {@code planned} in, writing the lines that differ to {@code lines} unless null. */
  private void apply(PlannedObjects planned, StringBuilder lines) {
    if (planned == null) {
      return;
    }
    if (!Objects.equals(basis, planned.basis()) && planned.basis() != null) {
      basis = planned.basis();
      if (lines != null) {
        lines.append(SavedRuleset.basis(basis));
      }
    }
    var stamps = planned.stamps().get();
    if (planned.whole() && lines != null) {
      versions.forEach(
          (key, stamp) -> {
            if (!stamps.containsKey(key)) {
              lines.append(SavedRuleset.version(key, null));
            }
          });
    }
    var next = planned.whole() ? new HashMap<ObjectKey, String>(stamps.size() * 2) : versions;
    stamps.forEach(
        (key, stamp) -> {
          if (lines != null && !Objects.equals(versions.get(key), stamp)) {
            lines.append(SavedRuleset.version(key, stamp));
          }
          if (stamp == null) {
            next.remove(key);
          } else {
            next.put(key, stamp);
          }
        });
    versions = next;
  }
}
