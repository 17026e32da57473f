package dev.proxima.proxy.nftables;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.RuleComment;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The serializer, with {@link NftTransaction}: the one place nft text is produced from the table's
 * objects ({@link NftChain}, {@link NftRule}, {@link NftSet}, {@link NftElement}). Every script and
 * transaction the proxy loads (full render, in-place full sync, cold batches, partial sync, Service
 * CIDRs, stale cleanup) is an {@link NftTransaction}, its statements written in order; this class
 * spells what they share (the family's table, an element, a comment), so the fake and the kernel
 * see one format. Names are Proxima's own; comments are sanitised here ({@link #comment}), so no
 * value a tenant chose can end a quoted string. Nothing reads this text back.
 */
public final class NftText {
  private static final Pattern REFERENCE =
      Pattern.compile("(@|\\bjump |\\bgoto )([A-Za-z0-9_][A-Za-z0-9_\\-]*)");

  private final String table;

  private final String suffix;

  /** The base chains, which keep their names in every generation: the dispatch switches in them. */
  private final Set<String> baseChains;

  public NftText(IpFamily family) {
    this(family, 0, Set.of());
  }

  /**
   * Generation {@code g} > 0 adds {@code -g<g>} to every chain but the hooked {@code baseChains}
   * and every set but those that hold state ({@link #keepsName}), so a full sync can build its
   * objects beside the ones in use.
   */
  public NftText(IpFamily family, int generation, Set<String> baseChains) {
    this.table = NftSyntax.family(family) + " " + NftNames.TABLE;
    this.suffix = generation == 0 ? "" : GENERATION_MARK + generation;
    this.baseChains = Set.copyOf(baseChains);
  }

  /** What separates a name from its generation: {@code service-ips-g1}. */
  public static final String GENERATION_MARK = "-g";

  /**
   * Whether a set keeps its name in every generation because its elements are state a full sync
   * must not lose: the ClientIP affinity sets (the clients' endpoints), the per-Service counting
   * sets and the node-wide connection counts (their counts).
   */
  public static boolean keepsName(String set) {
    return set.startsWith(NftNames.AFFINITY_PREFIX)
        || NftNames.SERVICE_SETS.contains(set)
        || set.equals(NftNames.COUNTERS);
  }

  public String chain(String name) {
    return suffix.isEmpty() || baseChains.contains(name) ? name : name + suffix;
  }

  public String set(String name) {
    return suffix.isEmpty() || keepsName(name) ? name : name + suffix;
  }

  /** {@code expression} with its chain and set references named for this generation. */
  public String references(String expression) {
    if (suffix.isEmpty()) {
      return expression;
    }
    var matcher = REFERENCE.matcher(expression);
    var out = new StringBuilder(expression.length() + 32);
    while (matcher.find()) {
      var name = matcher.group(2);
      var renamed = matcher.group(1).equals("@") ? set(name) : chain(name);
      matcher.appendReplacement(out, Matcher.quoteReplacement(matcher.group(1) + renamed));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  /**
   * A comment nft can read: a quoted nft string cannot escape anything and ends at the next {@code
   * "}, so anything outside {@code [A-Za-z0-9._/:-]} becomes {@code _}, and the text is cut to
   * nft's limit. Returns {@code text} itself when it is clean already, so elements keep sharing
   * their port's comment string.
   */
  public static String comment(String text) {
    var clean = RuleComment.sanitise(text, "", RuleComment.NFT_MAX);
    return clean.equals(text) ? text : clean;
  }

  /**
   * A fixed comment of a set or map (our own words, spaces and commas included) with what could end
   * the quoted string or the line, a quote, a backslash or a control character, made {@code _}.
   */
  public static String setComment(String text) {
    var out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c == '"' || c == '\\' || c < 0x20 || c == 0x7f ? '_' : c);
    }
    return out.toString();
  }

  /** {@code ip proxima}. */
  public String table() {
    return table;
  }

  public void element(StringBuilder out, NftElement element) {
    element.appendKey(out);
    if (element.comment() != null) {
      out.append(" comment \"").append(element.comment()).append('"');
    }
    if (element.hasValue()) {
      out.append(" : ");
      if (suffix.isEmpty()) {
        element.appendValue(out);
      } else {
        out.append(references(element.value()));
      }
    }
  }

  /** The characters {@link #element} writes, to size a script before writing it. */
  public static int length(NftElement element) {
    int length = element.keyLength();
    if (element.comment() != null) {
      length += 11 + element.comment().length();
    }
    if (element.hasValue()) {
      length += 3 + element.valueLength();
    }
    return length;
  }
}
