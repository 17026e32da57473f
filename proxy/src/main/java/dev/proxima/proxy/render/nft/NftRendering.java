package dev.proxima.proxy.render.nft;

import java.util.List;

/** {@code warnings}: one line per input skipped so the transaction can still load. */
public record NftRendering(String script, List<String> warnings) {}
