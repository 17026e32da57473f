package dev.proxima.proxy.render.nft;

import java.util.List;

/**
 * A rendered ruleset and what had to be left out of it.
 *
 * @param script the complete input for {@code nft -f}
 * @param warnings one line per input the renderer skipped so the transaction can still load: an
 *     address that is not of the ruleset's family, a port out of range, an address/port tuple that
 *     an earlier Service (in ServicePortName order) already claimed
 */
public record NftRendering(String script, List<String> warnings) {
  public NftRendering {
    warnings = List.copyOf(warnings);
  }
}
