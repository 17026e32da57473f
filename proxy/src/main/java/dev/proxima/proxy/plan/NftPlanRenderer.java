package dev.proxima.proxy.plan;

import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.nft.NftRendering;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import java.util.List;

/**
 * Turns one family's plan into the nft script that programs it. The live proxy's full syncs and the
 * render command both go through the same {@link RulesetAssembler}.
 */
public final class NftPlanRenderer {
  private NftPlanRenderer() {}

  /** With {@code settings}' series cap on per-Service locality counters. */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan, RuleSettings settings, List<String> nodeAddresses) {
    var family = plan.family();
    var cap = new ObservedPortCap(settings.observeLocality(), settings.observeMaxSeries());
    cap.wantAll(
        plan.ports().stream().filter(p -> cap.wants(p.port())).map(p -> p.port().name()).toList());
    var config =
        settings.forFamily(
            family, settings.nodePortAddresses(family, nodeAddresses, List.of()), List.of());
    return render(
        config,
        List.of(),
        plan.ports().stream().map(p -> rules(p, cap.counted(p.port().name()))).toList());
  }

  /**
   * @param serviceCidrs the ServiceCIDR objects' ranges: addresses in them no Service holds drop
   */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan, FamilySettings config, List<String> serviceCidrs) {
    return render(config, serviceCidrs, plan.ports().stream().map(NftPlanRenderer::rules).toList());
  }

  private static NftRendering render(
      FamilySettings config, List<String> serviceCidrs, List<ServicePortRules> rules) {
    var assembler = new RulesetAssembler(config);
    assembler.serviceCidrs(serviceCidrs);
    return new NftRendering(assembler.replaceAll(rules), assembler.warnings());
  }

  public static ServicePortRules rules(NodePlanner.PlannedPort planned, boolean counted) {
    return new ServicePortRules(
        planned.port().withObserveLocality(counted),
        planned.selection().clusterEndpoints(),
        planned.selection().localEndpoints(),
        planned.selection().hasAnyEndpoints(),
        planned.spill().spill());
  }

  /** Counted as {@code planned.port()} says. */
  public static ServicePortRules rules(NodePlanner.PlannedPort planned) {
    return rules(planned, planned.port().observeLocality());
  }
}
