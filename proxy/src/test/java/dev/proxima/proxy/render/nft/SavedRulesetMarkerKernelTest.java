package dev.proxima.proxy.render.nft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.testing.MutableClock;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.runtime.DataPlane;
import dev.proxima.proxy.runtime.NftDataPlane;
import dev.proxima.proxy.testing.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the real nft and kernel: a restarted proxy adopts the saved ruleset when the table's marker
 * set names the saved generation and a rule still refers to it, and loads every rule when the
 * marker is missing, stale or orphaned (the table flushed, or a marker chain of an earlier
 * version). Runs in a scratch network namespace; needs nft, ip and root, else skipped.
 */
class SavedRulesetMarkerKernelTest {
  @TempDir Path directory;
  @TempDir Path state;

  private final MutableClock clock = new MutableClock();
  private String namespace;
  private Kernel kernel;

  private static final List<ServicePortRules> PORTS = RestartFromSavedRulesetTest.PORTS;

  /** nft in the namespace, counting the transactions and whole-table read-backs of a sync. */
  private static final class Kernel implements RuleLoader {
    final Nft nft;
    final List<String> loaded = new ArrayList<>();
    int readBacks;

    Kernel(String namespace) {
      nft = new Nft(List.of("ip", "netns", "exec", namespace, "nft"), Duration.ofSeconds(60));
    }

    @Override
    public Nft.Result apply(String script) {
      loaded.add(script);
      return nft.apply(script);
    }

    @Override
    public Optional<String> declarations(String family, String table) {
      readBacks++;
      return nft.declarations(family, table);
    }

    @Override
    public Optional<String> set(String family, String table, String set) {
      return nft.set(family, table, set);
    }

    @Override
    public boolean referenced(String family, String table, String set) {
      return nft.referenced(family, table, set);
    }

    @Override
    public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
      return nft.referencedIfKnown(family, table, set);
    }
  }

  @BeforeEach
  void namespace() {
    NftTool.assumeKernelTools();
    namespace = "pxm-" + UUID.randomUUID().toString().substring(0, 6);
    HostTools.run(directory, "ip", "netns", "add", namespace).assertSucceeded();
    kernel = new Kernel(namespace);
  }

  @AfterEach
  void deleteNamespace() {
    if (namespace != null) {
      HostTools.run(directory, "ip", "netns", "del", namespace);
    }
  }

  /** A proxy as {@code run --state-dir} builds it, at its start: what it reads before its sync. */
  private NftDataPlane started() {
    var plane = RestartFromSavedRulesetTest.proxy(kernel, clock, state);
    plane.starting();
    plane.fullSyncStarting(List.of(), List.of());
    return plane;
  }

  private void nft(String script) {
    HostTools.inNamespace(directory, namespace, script, List.of("nft", "-f", "-"))
        .assertSucceeded();
  }

  @Test
  void aRestartOverTheTableItsMarkerSetVouchesForLoadsNothingAndReadsNothingBack() {
    assertThat(started().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);
    var before = NftTool.objects(directory, namespace);
    assertThat(before).containsKey("set sync-generation");
    int loads = kernel.loaded.size();
    int readBacks = kernel.readBacks;

    assertThat(started().replaceAll(PORTS, List.of()).status())
        .isEqualTo(DataPlane.Status.UNCHANGED);

    assertThat(kernel.loaded).hasSize(loads);
    assertThat(kernel.readBacks).isEqualTo(readBacks);
    assertThat(NftTool.objects(directory, namespace)).isEqualTo(before);
  }

  @Test
  void aRestartOverAFlushedTableLoadsEveryRuleAgainThoughTheMarkerElementSurvivedTheFlush() {
    started().replaceAll(PORTS, List.of());
    var loadedWhole = NftTool.objects(directory, namespace);
    int readBacks = kernel.readBacks;
    HostTools.inNamespace(
            directory, namespace, null, List.of("nft", "flush", "table", "ip", "proxima"))
        .assertSucceeded();
    assertThat(NftTool.objects(directory, namespace).get("set sync-generation"))
        .as("nft flush table leaves set elements")
        .anyMatch(line -> line.contains("comment \"epoch-"));

    assertThat(started().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).as("rebuilt in place").isEqualTo(readBacks + 1);
    assertThat(withoutMarkerElement(NftTool.objects(directory, namespace)))
        .isEqualTo(withoutMarkerElement(loadedWhole));
  }

  @Test
  void aRestartOverAMarkerNamingAnotherGenerationLoadsEveryRule() {
    started().replaceAll(PORTS, List.of());
    int readBacks = kernel.readBacks;
    nft(
        "flush set ip proxima sync-generation\n"
            + "add element ip proxima sync-generation { 0x1 comment \"epoch 1 generation 1\" }\n");

    assertThat(started().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    assertThat(NftTool.objects(directory, namespace).get("set sync-generation"))
        .noneMatch(line -> line.contains("\"epoch 1 generation 1\""));
  }

  @Test
  void aRestartOverTheMarkerChainOfAnEarlierVersionLoadsEveryRuleAndLeavesOnlyTheNewMarker() {
    started().replaceAll(PORTS, List.of());
    var loadedWhole = NftTool.objects(directory, namespace);
    int readBacks = kernel.readBacks;
    // What an earlier version left: the saved generation as the comment of the marker chain's
    // rule, and no marker set.
    var commit = lastCommit(state.resolve("nft-ipv4.state"));
    nft(
        "flush chain ip proxima sync-generation\n"
            + "delete set ip proxima sync-generation\n"
            + "add rule ip proxima sync-generation return comment \"epoch "
            + commit[1]
            + " generation "
            + commit[2]
            + "\"\n");

    assertThat(started().replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(kernel.readBacks).isEqualTo(readBacks + 1);
    var now = NftTool.objects(directory, namespace);
    assertThat(now.get("chain sync-generation"))
        .containsExactly("meta mark @sync-generation return");
    assertThat(withoutMarkerElement(now)).isEqualTo(withoutMarkerElement(loadedWhole));
  }

  @Test
  void aFirewallReloadsFlushRulesetUnderARunningProxyIsNoticedAndTheNextFullSyncRebuilds() {
    var plane = started();
    plane.replaceAll(PORTS, List.of());
    var loadedWhole = NftTool.objects(directory, namespace);
    assertThat(plane.intact()).isTrue();
    int loads = kernel.loaded.size();
    // What systemctl reload nftables runs first: /etc/nftables.conf starts with it.
    HostTools.inNamespace(directory, namespace, null, List.of("nft", "flush", "ruleset"))
        .assertSucceeded();

    assertThat(plane.intact()).isFalse();
    assertThat(kernel.loaded).as("the check loads nothing").hasSize(loads);
    assertThat(plane.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(withoutMarkerElement(NftTool.objects(directory, namespace)))
        .isEqualTo(withoutMarkerElement(loadedWhole));
    assertThat(plane.intact()).isTrue();
  }

  @Test
  void withoutAStateDirectoryAFlushedTableIsNoticedByItsServiceCidrSetLosingItsRule() {
    var plane = RestartFromSavedRulesetTest.proxy(kernel, clock, null);
    plane.replaceAll(PORTS, List.of());
    var loadedWhole = NftTool.objects(directory, namespace);
    assertThat(plane.intact()).isTrue();
    HostTools.inNamespace(
            directory, namespace, null, List.of("nft", "flush", "table", "ip", "proxima"))
        .assertSucceeded();

    assertThat(plane.intact()).isFalse();
    assertThat(plane.replaceAll(PORTS, List.of()).status()).isEqualTo(DataPlane.Status.LOADED);

    assertThat(NftTool.objects(directory, namespace)).isEqualTo(loadedWhole);
    assertThat(plane.intact()).isTrue();
  }

  private static String[] lastCommit(Path file) {
    try {
      var lines = Files.readAllLines(file);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (lines.get(i).startsWith("commit ")) {
          return lines.get(i).split(" ");
        }
      }
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no commit line in " + file);
  }

  /** The objects without the marker's element, which names a new generation after every load. */
  private static java.util.Map<String, List<String>> withoutMarkerElement(
      java.util.Map<String, List<String>> objects) {
    var out = new java.util.TreeMap<>(objects);
    out.remove("set sync-generation");
    return out;
  }
}
