package dev.proxima.proxy.dataplane;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.dataplane.DataPlane.Status;
import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.nftables.KernelTable;
import dev.proxima.proxy.nftables.NftElement;
import dev.proxima.proxy.nftables.NftTransaction;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one full sync a start, a restart and the periodic sync run, against a real table in a scratch
 * network namespace: it builds beside what the table holds in bounded transactions, switches, and
 * deletes the rest, keeping the clients an affinity set remembers; no file, no read-back of
 * elements. Needs nft, ip and root, else skipped.
 */
@RootTier
class FullSyncKernelTest {
  @TempDir Path directory;

  private String namespace;
  private final List<Integer> transactionLines = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void namespace() {
    assumeTrue(
        HostTools.onPath("nft").isPresent() && HostTools.onPath("ip").isPresent(),
        "needs nft and ip");
    namespace = "pxr-" + UUID.randomUUID().toString().substring(0, 6);
    HostTools.run(directory, "ip", "netns", "add", namespace).assertSucceeded();
  }

  @AfterEach
  void deleteNamespace() {
    if (namespace != null) {
      HostTools.run(directory, "ip", "netns", "del", namespace);
    }
  }

  @Test
  void aRestartedProxysFirstSyncReplacesATableLeftByAnEarlierProcessAndKeepsItsAffinityEntries() {
    var sticky =
        service("shop/sticky", "10.96.0.12", 80)
            .sticky(Duration.ofSeconds(600))
            .cluster(remote("10.180.2.4", 80), remote("10.180.2.5", 80));
    var gone = service("shop/gone", "10.96.0.20", 80).cluster(remote("10.180.3.1", 80));
    var web = service("shop/web", "10.96.0.10", 80).cluster(remote("10.180.0.4", 8080));
    var webMoved = service("shop/web", "10.96.0.10", 80).cluster(remote("10.180.0.7", 8080));
    assertThat(plane().replaceAll(List.of(sticky, gone, web), List.of()).status())
        .isEqualTo(Status.LOADED);
    var affinitySets = names("sets").stream().filter(n -> n.startsWith("affinity-")).toList();
    assertThat(affinitySets).hasSize(2);
    for (var set : affinitySets) {
      nft("add element ip proxima " + set + " { 10.1.2.3 }\n");
    }

    // A new process: it knows nothing of the table an earlier one left.
    var restarted = plane();
    var outcome = restarted.replaceAll(List.of(sticky, webMoved), List.of());

    assertThat(outcome.status()).isEqualTo(Status.LOADED);
    var table = list();
    for (var set : affinitySets) {
      assertThat(setListing(set)).as("the clients %s remembers", set).contains("10.1.2.3");
    }
    assertThat(table)
        .contains("10.96.0.10 . tcp . 80")
        .contains("10.180.0.7 . 8080")
        .doesNotContain("10.180.0.4")
        .doesNotContain("10.96.0.20");
    assertThat(names("chains"))
        .as("every chain of the earlier process is gone; the hooked ones are shared")
        .allMatch(name -> name.endsWith("-g1") || !name.contains("-lb-") && isBase(table, name));
    assertThat(names("maps")).isNotEmpty().allMatch(name -> name.endsWith("-g1"));
    assertThat(restarted.intact()).isTrue();
    assertThat(Collections.max(transactionLines))
        .isLessThanOrEqualTo(NftDataPlane.TRANSACTION_LINES);
  }

  @Test
  void aFullSyncOverALoadedTableNeverSendsATransactionLargerThanTheBatchBound() {
    var ports = new ArrayList<ServicePortRules>();
    for (int i = 0; i < 5_000; i++) {
      ports.add(
          service("ns/svc" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), 80)
              .cluster(
                  remote("10.180." + (i / 250) + "." + (i % 250 + 1), 8080),
                  remote("10.181." + (i / 250) + "." + (i % 250 + 1), 8080)));
    }
    var plane = plane();
    assertThat(plane.replaceAll(ports, List.of()).status()).isEqualTo(Status.LOADED);

    for (var sync : List.of(plane, plane(), plane)) {
      transactionLines.clear();
      // The periodic full sync, a restarted proxy's first, and the periodic one again.
      assertThat(sync.replaceAll(ports, List.of()).status()).isEqualTo(Status.LOADED);

      assertThat(transactionLines).hasSizeGreaterThan(4);
      // A batch's element blocks add a line or two per set to the budget's count.
      assertThat(Collections.max(transactionLines))
          .isLessThanOrEqualTo(NftDataPlane.TRANSACTION_LINES + 100);
    }
    assertThat(names("maps")).allMatch(name -> name.endsWith("-g1"));
    assertThat(list()).contains("10.96.19.250 . tcp . 80").contains("10.181.19.250 . 8080");
  }

  private NftDataPlane plane() {
    var nft = new Nft(List.of("ip", "netns", "exec", namespace, "nft"), Duration.ofSeconds(120));
    RuleLoader recording =
        new RuleLoader() {
          @Override
          public Nft.Result apply(NftTransaction transaction) {
            transactionLines.add(transaction.lines());
            return nft.apply(transaction);
          }

          @Override
          public Optional<KernelTable> table(String family, String table) {
            return nft.table(family, table);
          }

          @Override
          public Optional<List<NftElement>> elements(String family, String table, String set) {
            return nft.elements(family, table, set);
          }

          @Override
          public Optional<Boolean> referencedIfKnown(String family, String table, String set) {
            return nft.referencedIfKnown(family, table, set);
          }
        };
    var metrics = new ProxyMetrics(new PrometheusRegistry(), ProxyMode.nftables);
    return new NftDataPlane(
        IpFamily.IPV4, RuleSettings.defaults(), recording, metrics, Clock.systemUTC());
  }

  private String nft(String script) {
    return HostTools.inNamespace(directory, namespace, script, List.of("nft", "-f", "-"))
        .assertSucceeded()
        .stdout();
  }

  private String list() {
    return HostTools.inNamespace(
            directory, namespace, null, List.of("nft", "list", "table", "ip", "proxima"))
        .assertSucceeded()
        .stdout();
  }

  private String setListing(String set) {
    return HostTools.inNamespace(
            directory, namespace, null, List.of("nft", "list", "set", "ip", "proxima", set))
        .assertSucceeded()
        .stdout();
  }

  /** The names of the table's chains, sets or maps. */
  private List<String> names(String kind) {
    var listing =
        HostTools.inNamespace(directory, namespace, null, List.of("nft", "-t", "list", kind, "ip"))
            .assertSucceeded()
            .stdout();
    var prefix = kind.substring(0, kind.length() - 1) + " ";
    return listing
        .lines()
        .map(String::strip)
        .filter(line -> line.startsWith(prefix) && line.endsWith("{"))
        .map(line -> line.split("\\s+")[1])
        .toList();
  }

  private static boolean isBase(String table, String chain) {
    int at = table.indexOf("chain " + chain + " {");
    return at >= 0 && table.substring(at).lines().skip(1).findFirst().orElse("").contains(" hook ");
  }
}
