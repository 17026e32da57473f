package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.nftables.NftSyntax;
import java.util.List;

/** The nft words of an endpoint chain's choices, and of zone spill-over's weighted draw. */
final class SpillRules {
  private SpillRules() {}

  /** Matches {@code keepPerMille} of every thousand new connections, drawn afresh for each. */
  static String draw(ZoneSpill spill) {
    return "numgen random mod " + ZoneSpill.WHOLE + " < " + spill.keepPerMille();
  }

  /** DNAT to one of {@code list} at random, the list written once in an anonymous map. */
  static String dnat(IpFamily family, Protocol protocol, List<Endpoint> list) {
    var choices = new StringBuilder();
    for (int i = 0; i < list.size(); i++) {
      Endpoint target = list.get(i);
      choices.append(i == 0 ? "" : ", ").append(i).append(" : ");
      choices.append(target.ip()).append(" . ").append(target.port());
    }
    return "meta l4proto "
        + protocol.lower()
        + " dnat "
        + NftSyntax.family(family)
        + " to numgen random mod "
        + list.size()
        + " map { "
        + choices
        + " }";
  }
}
