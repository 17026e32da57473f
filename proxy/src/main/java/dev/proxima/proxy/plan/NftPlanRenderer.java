package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.nft.NftConfig;
import dev.proxima.proxy.render.nft.NftFamily;
import dev.proxima.proxy.render.nft.NftRendering;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.util.List;

/**
 * Turns one family's plan into the nft script that programs it. The live proxy's full syncs and the
 * render command both go through the same {@link RulesetAssembler}.
 */
public final class NftPlanRenderer {
  private NftPlanRenderer() {}

  /**
   * @param nodeAddresses the node's addresses (status.addresses), for --nodeport-addresses
   */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan, RuleSettings settings, List<String> nodeAddresses) {
    return render(plan, settings, nodeAddresses, List.of());
  }

  /**
   * @param serviceCidrs the ServiceCIDR objects' ranges: addresses in them no Service holds drop
   */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan,
      RuleSettings settings,
      List<String> nodeAddresses,
      List<String> serviceCidrs) {
    var family = plan.family();
    return render(
        plan,
        config(family, settings, settings.nodePortAddresses(family, nodeAddresses)),
        serviceCidrs);
  }

  /**
   * The plan rendered with these settings.
   *
   * @param serviceCidrs the ServiceCIDR objects' ranges: addresses in them no Service holds drop
   */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan, NftConfig config, List<String> serviceCidrs) {
    var assembler = new RulesetAssembler(config);
    assembler.serviceCidrs(serviceCidrs);
    var script = assembler.replaceAll(plan.ports().stream().map(NftPlanRenderer::rules).toList());
    return new NftRendering(script, assembler.warnings());
  }

  /** {@link #config(IpFamily, RuleSettings, List, List)} for a node without pod CIDRs. */
  public static NftConfig config(
      IpFamily family, RuleSettings settings, List<String> nodePortAddresses) {
    return config(family, settings, nodePortAddresses, List.of());
  }

  /** The renderer's settings for one family, with the node addresses already selected. */
  public static NftConfig config(
      IpFamily family,
      RuleSettings settings,
      List<String> nodePortAddresses,
      List<String> nodePodCidrs) {
    return NftConfig.of(nftFamily(family), settings.localCidrs(family, nodePodCidrs))
        .withMasqueradeAll(settings.masqueradeAll())
        .withMasqueradeBit(settings.masqueradeBit())
        .withNodePortAddresses(nodePortAddresses)
        .withNodePortsListed(settings.restrictsNodePorts(family))
        .withPodInterface(settings.podInterface());
  }

  /** What the renderer needs of one planned Service port. */
  public static ServicePortRules rules(NodePlanner.PlannedPort planned) {
    return new ServicePortRules(
        planned.port(),
        planned.selection().clusterEndpoints(),
        planned.selection().localEndpoints(),
        planned.selection().hasAnyEndpoints());
  }

  public static NftFamily nftFamily(IpFamily family) {
    return family == IpFamily.IPV4 ? NftFamily.IPV4 : NftFamily.IPV6;
  }
}
