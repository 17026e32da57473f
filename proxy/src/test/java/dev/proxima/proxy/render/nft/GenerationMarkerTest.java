package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The table's marker is the one element of a set, written with set and element statements only and
 * read back from {@code nft list set}; a listing that does not name exactly one generation names
 * none.
 */
class GenerationMarkerTest {
  private static final FamilySettings CONFIG =
      FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/8"));

  private final RulesetAssembler assembler = new RulesetAssembler(CONFIG);

  @Test
  void theMarkerIsTheCommentOfTheSetsElementAsNftListsIt() {
    var listing =
        """
        table ip proxima {
        	set sync-generation {
        		type mark
        		elements = { 0x00000001 comment "epoch 8123456789012345678 generation 42" }
        	}
        }
        """;

    assertThat(SavedRuleset.marker(listing))
        .contains(new SavedRuleset.Marker(8123456789012345678L, 42));
  }

  @Test
  void aListingWithoutExactlyOneWellFormedMarkerNamesNone() {
    var set = "table ip proxima {\n\tset sync-generation {\n\t\ttype mark\n%s\t}\n}\n";

    assertThat(SavedRuleset.marker("")).isEmpty();
    assertThat(SavedRuleset.marker(set.formatted(""))).as("no element").isEmpty();
    assertThat(
            SavedRuleset.marker(
                set.formatted("\t\telements = { 0x00000001 comment \"epoch 1 generation\" }\n")))
        .as("garbled")
        .isEmpty();
    assertThat(
            SavedRuleset.marker(
                set.formatted(
                    "\t\telements = { 0x00000001 comment \"epoch 99999999999999999999 generation"
                        + " 1\" }\n")))
        .as("out of range")
        .isEmpty();
    assertThat(
            SavedRuleset.marker(
                set.formatted(
                    "\t\telements = { 0x00000001 comment \"epoch 1 generation 2\",\n"
                        + "\t\t\t     0x00000002 comment \"epoch 1 generation 3\" }\n")))
        .as("two elements: not a set this proxy wrote")
        .isEmpty();
  }

  @Test
  void theMarkerStatementsAreSetAndElementStatementsThatReplaceTheElement() {
    var marker = new SavedRuleset.Marker(7, 3);
    var script = assembler.markerScript(marker);

    assertThat(script.lines().filter(line -> !line.startsWith("\t") && !line.equals("}")))
        .as("statements; the element's own line and the block's end aside")
        .allMatch(
            line ->
                line.startsWith("add set ip proxima sync-generation ")
                    || line.equals("flush set ip proxima sync-generation")
                    || line.startsWith("add element ip proxima sync-generation "));

    var nft = new FakeNft();
    nft.apply(
        assembler.replaceAll(List.of()) + assembler.markerScript(new SavedRuleset.Marker(7, 2)));
    nft.apply(script);
    assertThat(nft.elementsOf(RulesetAssembler.GENERATION_SET).values())
        .containsExactly("0x1 comment \"epoch-7-generation-3\"");
  }

  @Test
  void theMarkersRuleRefersToTheSetSoThatAFlushedTableShowsAsASetNoRuleRefersTo() {
    var nft = new FakeNft();
    nft.apply(
        assembler.replaceAll(List.of())
            + assembler.markerScript(new SavedRuleset.Marker(7, 1))
            + assembler.markerRuleScript());
    nft.apply(assembler.markerScript(new SavedRuleset.Marker(7, 2)) + assembler.markerRuleScript());
    assertThat(nft.rulesOf(RulesetAssembler.GENERATION_CHAIN))
        .as("written again, not added twice")
        .containsExactly("meta mark @sync-generation return");
    assertThat(nft.referenced(RulesetAssembler.GENERATION_SET)).isTrue();

    nft.apply("flush table ip proxima\n");

    assertThat(nft.referenced(RulesetAssembler.GENERATION_SET)).isFalse();
    assertThat(nft.elementsOf(RulesetAssembler.GENERATION_SET)).hasSize(1);
  }
}
