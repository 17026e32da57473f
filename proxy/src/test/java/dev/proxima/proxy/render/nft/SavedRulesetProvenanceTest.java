package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.render.nft.TransactionBatchesTest.shapes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Beside its ports, a saved file says what they were planned from: the basis and each Service key's
 * object revisions. Like the ports, a record counts only once its commit is written, a later record
 * replaces an earlier one, and a file rewritten from its own contents says the same.
 */
class SavedRulesetProvenanceTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ObjectKey API = new ObjectKey("shop", "api");
  private static final ObjectKey DB = new ObjectKey("data", "db");

  /** A file written whole after a full sync, then two partial syncs' records, the last cut off. */
  private static String file() {
    var assembler =
        new RulesetAssembler(FamilySettings.of(IpFamily.IPV4, List.of()), new MutableClock());
    var text = new StringBuilder(SavedRuleset.header("s"));
    assembler.recordTo(text::append);
    assembler.replaceAll(shapes(3, 1, 0));
    assembler.recordTo(null);
    text.append(SavedRuleset.cidrs(List.of("10.96.0.0/12")))
        .append(SavedRuleset.basis("b1"))
        .append(SavedRuleset.version(WEB, "7 web-1=9"))
        .append(SavedRuleset.version(API, "8 api-1=10"))
        .append(SavedRuleset.commit(new SavedRuleset.Marker(5, 1)))
        .append(SavedRuleset.version(WEB, "7 web-1=11"))
        .append(SavedRuleset.version(API, null))
        .append(SavedRuleset.version(DB, "- db-1=12"))
        .append(SavedRuleset.commit(new SavedRuleset.Marker(5, 2)))
        .append(SavedRuleset.basis("b2"))
        .append(SavedRuleset.version(WEB, "13 web-1=11"));
    return text.toString();
  }

  @Test
  void theCommittedRecordsSayWhereTheTableCameFromAndAnUncommittedOneIsLeftOut() throws Exception {
    var provenance = SavedRuleset.provenance(file().lines().iterator());

    assertThat(provenance.basis()).isEqualTo("b1");
    assertThat(provenance.versions()).isEqualTo(Map.of(WEB, "7 web-1=11", DB, "- db-1=12"));
    assertThat(provenance.marker()).isEqualTo(new SavedRuleset.Marker(5, 2));
    assertThat(provenance.serviceCidrs()).containsExactly("10.96.0.0/12");
    assertThat(provenance.settings()).isEqualTo("s");
  }

  @Test
  void theWholeParseReadsTheSameAndARewriteKeepsIt() throws Exception {
    var contents = SavedRuleset.parse(file().lines().iterator());
    var rewritten = new StringBuilder();
    SavedRuleset.write(contents, rewritten);
    var again = SavedRuleset.parse(rewritten.toString().lines().iterator());

    for (var read : List.of(contents, again)) {
      assertThat(read.basis()).isEqualTo("b1");
      assertThat(read.versions()).isEqualTo(Map.of(WEB, "7 web-1=11", DB, "- db-1=12"));
      assertThat(read.portCount()).isEqualTo(3);
    }
    assertThat(SavedRuleset.provenance(rewritten.toString().lines().iterator()).versions())
        .isEqualTo(contents.versions());
  }

  @Test
  void aMalformedRevisionLineMakesTheFileCorrupt() {
    var text = file();
    for (var damaged :
        List.of(
            text.replace("version shop\tweb\t7 web-1=9", "version shop\tweb"),
            text.replace("version shop\tweb\t7 web-1=9", "version shop\tweb\t"),
            text.replace("unversioned shop\tapi", "unversioned shop"),
            text.replace("basis b1", "basis "))) {
      assertThat(damaged).isNotEqualTo(text);
      assertThatThrownBy(() -> SavedRuleset.provenance(damaged.lines().iterator()))
          .isInstanceOf(SavedRuleset.Corrupt.class);
      assertThatThrownBy(() -> SavedRuleset.parse(damaged.lines().iterator()))
          .isInstanceOf(SavedRuleset.Corrupt.class);
    }
  }
}
