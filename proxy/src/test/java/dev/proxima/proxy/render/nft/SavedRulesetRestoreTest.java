package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.render.nft.TransactionBatchesTest.shapes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A restarted proxy takes up its table from the saved file's compact records: the assembler they
 * restore must hold exactly what the assembler that saved them held, so every later sync loads the
 * same transactions either way; and a file cut short or damaged is refused or read up to its last
 * commit, never half-read.
 */
class SavedRulesetRestoreTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  private final MutableClock clock = new MutableClock();

  /**
   * The saved file of an assembler that loaded {@code first}, then went to {@code second} and
   * deleted what went stale; and every script it loaded, in order.
   */
  private record Saved(String text, RulesetAssembler assembler, List<String> loaded) {
    /** A kernel holding what the assembler loaded. */
    FakeNft kernel() {
      var kernel = new FakeNft();
      loaded.forEach(kernel::apply);
      return kernel;
    }
  }

  private Saved saveAfterTwoSyncs(List<ServicePortRules> first, List<ServicePortRules> second) {
    var text = new StringBuilder(SavedRuleset.header("s"));
    var loaded = new ArrayList<String>();
    var assembler = new RulesetAssembler(CONFIG, clock);
    assembler.recordTo(text::append);
    loaded.add(assembler.replaceAll(first));
    loaded.add(assembler.serviceCidrs(List.of("10.96.0.0/12")));
    text.append(SavedRuleset.cidrs(assembler.serviceCidrsLoaded()));
    text.append(SavedRuleset.commit(new SavedRuleset.Marker(3, 1)));
    // A partial sync's records are appended: ports changed, ports gone.
    loaded.addAll(assembler.updateInBatches(assembler.changesTo(second), 15_000).orElseThrow());
    text.append(SavedRuleset.commit(new SavedRuleset.Marker(3, 2)));
    assembler.recordTo(null);
    clock.advance(RulesetAssembler.STALE_DELAY);
    assembler
        .staleCleanup()
        .ifPresent(
            cleanup -> {
              loaded.add(cleanup.script());
              assembler.staleDeleted(cleanup);
            });
    return new Saved(text.toString(), assembler, loaded);
  }

  private static SavedRuleset.Contents parse(String text) throws SavedRuleset.Corrupt {
    return SavedRuleset.parse(text.lines().iterator());
  }

  /** The table {@code script} builds: elements sorted, since use order may differ. */
  private static java.util.Map<String, String> table(String script) {
    var kernel = new FakeNft();
    kernel.apply(script);
    return kernel.objects();
  }

  private static String written(java.util.function.Consumer<RulesetAssembler.Recorder> records) {
    var out = new StringBuilder();
    records.accept(out::append);
    return out.toString();
  }

  @Test
  void aRestoredAssemblerLoadsTheSameTransactionsAsTheAssemblerThatSavedIt() throws Exception {
    var first = shapes(60, 3, 0);
    var second = new ArrayList<>(shapes(60, 3, 1).subList(0, 50)); // ten gone, the rest changed
    var saved = saveAfterTwoSyncs(first, second);
    var original = saved.assembler();

    var restored = RulesetAssembler.restore(CONFIG, clock, parse(saved.text()));

    assertThat(restored.restoredPorts()).isEqualTo(50);
    assertThat(table(restored.fullScript())).isEqualTo(table(original.fullScript()));
    assertThat(written(restored.recordsNow())).isEqualTo(written(original.recordsNow()));
    assertThat(restored.countedPorts()).isEqualTo(original.countedPorts());
    assertThat(restored.countingOwners()).isEqualTo(original.countingOwners());

    // The next sync: some ports back as they were, some new, some gone.
    var third = new ArrayList<>(shapes(70, 3, 2).subList(20, 70));
    third.addAll(second.subList(0, 10));
    var changes = restored.changesTo(third);
    assertThat(changes).isEqualTo(original.changesTo(third));
    var restoredKernel = saved.kernel();
    var originalKernel = saved.kernel();
    var restoredBatches = restored.updateInBatches(changes, 400).orElseThrow();
    var originalBatches = original.updateInBatches(changes, 400).orElseThrow();
    assertThat(restoredBatches).hasSameSizeAs(originalBatches).hasSizeGreaterThan(1);
    restoredBatches.forEach(restoredKernel::apply);
    originalBatches.forEach(originalKernel::apply);
    assertThat(restoredKernel.objects()).isEqualTo(originalKernel.objects());
    assertThat(table(restored.fullScript())).isEqualTo(table(original.fullScript()));
  }

  @Test
  void aRestoredPortUnchangedSinceItWasSavedIsAdoptedAndAChangedOneIsNot() throws Exception {
    var ports = shapes(20, 2, 0);
    var saved = saveAfterTwoSyncs(ports, ports);
    var restored = RulesetAssembler.restore(CONFIG, clock, parse(saved.text()));
    var changed = new ArrayList<>(ports);
    changed.set(7, shapes(20, 2, 1).get(7));

    var changes = restored.changesTo(changed);

    assertThat(changes).containsOnlyKeys(changed.get(7).port().name());
    assertThat(restored.restoredPorts()).isEqualTo(1);
  }

  @Test
  void aFileCutShortAnywhereIsReadUpToItsLastCommitOrRefused() throws Exception {
    var saved = saveAfterTwoSyncs(shapes(12, 2, 0), shapes(12, 2, 1).subList(0, 9)).text();
    var afterFirst = saved.substring(0, saved.indexOf("commit 3 1\n") + "commit 3 1\n".length());
    var firstState = parse(afterFirst);
    var wholeState = parse(saved);

    for (int cut = 0; cut < saved.length(); cut += 7) {
      var text = saved.substring(0, cut);
      boolean midLine = cut > 0 && saved.charAt(cut - 1) != '\n';
      if (cut < afterFirst.length() - 1) {
        // Before the first commit is whole: the proxy stopped before its first load finished.
        assertThatThrownBy(() -> parse(text)).isInstanceOf(SavedRuleset.Corrupt.class);
      } else if (midLine && !text.endsWith("commit 3") && !text.endsWith("commit 3 ")) {
        // A line cut short may not read as any line: refused whole, never half-read.
        try {
          var contents = parse(text);
          assertThat(contents.ports().keySet())
              .isIn(firstState.ports().keySet(), wholeState.ports().keySet());
        } catch (SavedRuleset.Corrupt refused) {
          assertThat(refused).isInstanceOf(SavedRuleset.Corrupt.class);
        }
      } else if (cut < saved.length() - 1) {
        var contents = parse(text);
        assertThat(contents.marker()).isEqualTo(firstState.marker());
        assertThat(contents.ports().keySet()).isEqualTo(firstState.ports().keySet());
        assertThat(RulesetAssembler.restore(CONFIG, clock, contents).fullScript())
            .isEqualTo(RulesetAssembler.restore(CONFIG, clock, firstState).fullScript());
      }
    }
    assertThat(wholeState.marker()).isEqualTo(new SavedRuleset.Marker(3, 2));
    assertThat(wholeState.portCount()).isEqualTo(9);
  }

  @Test
  void aFileOfTheFormerFormatIsCorruptSoTheProxyLoadsEverything() throws Exception {
    var saved = saveAfterTwoSyncs(shapes(5, 2, 0), shapes(5, 2, 0)).text();
    var former = saved.replaceFirst("^" + SavedRuleset.HEADER, "proxima-nft-state 1");

    assertThat(former).isNotEqualTo(saved);
    assertThatThrownBy(() -> parse(former))
        .isInstanceOf(SavedRuleset.Corrupt.class)
        .hasMessageContaining("not a saved ruleset of this format");
  }

  @Test
  void aDamagedRecordMakesTheWholeFileCorrupt() throws Exception {
    var saved = saveAfterTwoSyncs(shapes(5, 2, 0), shapes(5, 2, 0)).text();
    var digest = saved.lines().filter(line -> line.startsWith("port ")).findFirst().orElseThrow();
    var badDigest = saved.replace(digest, digest.substring(0, digest.length() - 3) + "xyz");
    var shortDigest = saved.replace(digest, digest.substring(0, digest.length() - 1));
    var statementWithoutName = saved.replaceFirst("\ne [^\n]*", "\ne novalue");
    var setWithoutKind = saved.replaceFirst("\ns ([^\t\n]*)\t[^\n]*", "\ns $1\tset");
    var chainWithBadHook = saved.replaceFirst("\nc ([^\t\n]*)\t", "\nc $1\tnat x");

    for (var text :
        List.of(badDigest, shortDigest, statementWithoutName, setWithoutKind, chainWithBadHook)) {
      assertThat(text).isNotEqualTo(saved);
      assertThatThrownBy(() -> parse(text)).isInstanceOf(SavedRuleset.Corrupt.class);
    }
  }
}
