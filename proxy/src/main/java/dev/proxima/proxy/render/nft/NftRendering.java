package dev.proxima.proxy.render.nft;

import java.util.List;

/**
 * A rendered ruleset and what had to be left out of it.
 *
 * @param warnings one line per input skipped so the transaction can still load
 */
public record NftRendering(String script, List<String> warnings) {}
