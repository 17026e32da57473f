package dev.proxima.proxy.runtime;

import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.nft.KernelTable;
import dev.proxima.proxy.render.nft.NftNames;
import dev.proxima.proxy.render.nft.NftSyntax;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nftables mode: table {@code proxima}, replaced or patched in one nft transaction. A full sync
 * replaces the table's contents in place, keeping the ClientIP affinity sets it still needs.
 */
public final class NftDataPlane implements DataPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NftDataPlane.class);

  private final IpFamily family;
  private final RuleSettings settings;
  private final RuleLoader nft;
  private final Consumer<String> dryRunOutput;
  private final ProxyMetrics metrics;
  private RulesetAssembler assembler;
  private List<String> serviceCidrs = List.of();
  private int linesLoaded;

  /**
   * @param nft null in dry-run mode, where transactions go to {@code dryRunOutput} instead
   */
  public NftDataPlane(
      IpFamily family,
      RuleSettings settings,
      RuleLoader nft,
      Consumer<String> dryRunOutput,
      ProxyMetrics metrics) {
    this.family = family;
    this.settings = settings;
    this.nft = nft;
    this.dryRunOutput = dryRunOutput;
    this.metrics = metrics;
  }

  @Override
  public Outcome replaceAll(
      List<ServicePortRules> ports, List<String> nodePortAddresses, List<String> nodePodCidrs) {
    // Let the old state go first: at scale two assemblers side by side cost tens of MiB of heap.
    // Should the new one fail to build, no assembler means the next sync is a full one again.
    assembler = null;
    linesLoaded = 0;
    assembler = new RulesetAssembler(settings.forFamily(family, nodePortAddresses, nodePodCidrs));
    assembler.serviceCidrs(serviceCidrs);
    var kernel = kernelTable();
    if (kernel == null) {
      return load(assembler.replaceAll(ports));
    }
    var keeping = assembler.replaceAll(ports, kernel);
    linesLoaded = Lines.count(keeping);
    var result = nft.apply(keeping);
    if (result.succeeded()) {
      return Outcome.LOADED;
    }
    // Should this kernel refuse the in-place replacement, a whole new table still gets the rules
    // in now; only the affinity memory is lost, as it always was before.
    LOG.atWarn()
        .addKeyValue("family", family)
        .addKeyValue("error", result.summary())
        .log("Could not replace the rules in place; replacing the whole table, affinity resets");
    return load(assembler.fullScript());
  }

  /** The table as the kernel has it now, or null to replace it whole (dry run, no table yet). */
  private KernelTable kernelTable() {
    if (nft == null) {
      return null;
    }
    return nft.declarations(NftSyntax.family(family), NftNames.TABLE)
        .map(KernelTable::parse)
        .orElse(null);
  }

  @Override
  public Outcome update(Map<ServicePortName, ServicePortRules> changes) {
    linesLoaded = 0;
    if (assembler == null) {
      return Outcome.NEEDS_FULL;
    }
    // Empty when a rule needs a map the kernel cannot type from its own state.
    var ports = assembler.update(changes);
    if (ports.isEmpty()) {
      return Outcome.NEEDS_FULL;
    }
    return load(ports.get() + assembler.serviceCidrs(serviceCidrs));
  }

  @Override
  public void serviceCidrs(List<String> cidrs) {
    serviceCidrs = List.copyOf(cidrs);
  }

  @Override
  public int linesLoaded() {
    return linesLoaded;
  }

  @Override
  public List<String> warnings() {
    return assembler == null ? List.of() : assembler.warnings();
  }

  private Outcome load(String transaction) {
    if (transaction.isEmpty()) {
      return Outcome.UNCHANGED;
    }
    linesLoaded = Lines.count(transaction);
    if (nft == null) {
      dryRunOutput.accept(transaction);
      return Outcome.LOADED;
    }
    var result = nft.apply(transaction);
    if (result.succeeded()) {
      return Outcome.LOADED;
    }
    metrics.nftablesFailed(family);
    return Outcome.failed(result.summary());
  }
}
