package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.track.ObjectVersions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lines a sync appends to the saved file are what changed of its provenance, no more. */
class SavedProvenanceTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ObjectKey API = new ObjectKey("shop", "api");
  private static final ObjectKey DB = new ObjectKey("data", "db");

  private final SavedProvenance provenance = new SavedProvenance();

  @Test
  void aFullSyncAppendsTheKeysThatChangedCameOrWentAndANewBasis() {
    provenance.adopt("b1", Map.of(WEB, "1", API, "2"));

    var now = new HashMap<>(Map.of(WEB, "1", DB, "3"));
    var lines = provenance.changes(new PlannedObjects("b2", () -> now, true));

    assertThat(lines.lines())
        .containsExactlyInAnyOrder("basis b2", "unversioned shop\tapi", "version data\tdb\t3");
    assertThat(provenance.whole(null).lines())
        .containsExactlyInAnyOrder("basis b2", "version shop\tweb\t1", "version data\tdb\t3");
  }

  @Test
  void aFullSyncWithNoObjectsLeftRemovesEveryKey() {
    provenance.adopt("b1", Map.of(WEB, "1", API, "2"));

    assertThat(
            provenance
                .changes(
                    PlannedObjects.every("b1", new ObjectVersions.Snapshot(List.of(), List.of())))
                .lines())
        .containsExactlyInAnyOrder("unversioned shop\tweb", "unversioned shop\tapi");
    assertThat(provenance.whole(null)).isEqualTo("basis b1\n");
  }

  @Test
  void aPartialSyncAppendsItsKeysAndKeepsTheOthers() {
    provenance.adopt("b1", Map.of(WEB, "1", API, "2"));
    var some = new HashMap<ObjectKey, String>();
    some.put(WEB, "5");
    some.put(API, null);
    some.put(DB, "1");

    assertThat(provenance.changes(PlannedObjects.some("b1", some)).lines())
        .containsExactlyInAnyOrder(
            "version shop\tweb\t5", "unversioned shop\tapi", "version data\tdb\t1");
    assertThat(provenance.changes(PlannedObjects.some("b1", Map.of(WEB, "5")))).isEmpty();
    assertThat(provenance.whole(null).lines())
        .containsExactlyInAnyOrder("basis b1", "version shop\tweb\t5", "version data\tdb\t1");
  }
}
