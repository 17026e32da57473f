package dev.proxima.proxy.plan;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.nft.NftConfig;
import dev.proxima.proxy.render.nft.NftFamily;
import dev.proxima.proxy.render.nft.NftRenderer;
import dev.proxima.proxy.render.nft.NftRendering;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.util.List;

/**
 * Turns one family's plan into the nft script that programs it; the live proxy and render share it.
 */
public final class NftPlanRenderer {
  private NftPlanRenderer() {}

  /**
   * @param nodeAddresses the node's addresses (status.addresses), for --nodeport-addresses
   */
  public static NftRendering render(
      NodePlanner.FamilyPlan plan, RuleSettings settings, List<String> nodeAddresses) {
    var family = plan.family();
    var config =
        NftConfig.of(nftFamily(family), settings.clusterCidrs(family))
            .withMasqueradeAll(settings.masqueradeAll())
            .withMasqueradeBit(settings.masqueradeBit())
            .withNodePortAddresses(settings.nodePortAddresses(family, nodeAddresses));
    var rules =
        plan.ports().stream()
            .map(
                planned ->
                    new ServicePortRules(
                        planned.port(),
                        planned.selection().clusterEndpoints(),
                        planned.selection().localEndpoints(),
                        planned.selection().hasAnyEndpoints()))
            .toList();
    return NftRenderer.renderWithWarnings(config, rules);
  }

  public static NftFamily nftFamily(IpFamily family) {
    return family == IpFamily.IPV4 ? NftFamily.IPV4 : NftFamily.IPV6;
  }
}
