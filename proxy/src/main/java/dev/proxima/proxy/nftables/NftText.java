package dev.proxima.proxy.nftables;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.RuleComment;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The serializer, with {@link NftTransaction}, the one place nft text is written: this class spells
 * what statements share (the table, generation names, an element, a comment). Comments are
 * sanitised here, so no value a tenant chose can end a quoted string.
 */
public final class NftText {
  private static final Pattern REFERENCE =
      Pattern.compile("(@|\\bjump |\\bgoto )([A-Za-z0-9_][A-Za-z0-9_\\-]*)");

  private final String table;
  private final String suffix;

  /** They keep their names in every generation: the switch is made in them. */
  private final Set<String> baseChains;

  public NftText(IpFamily family) {
    this(family, 0, Set.of());
  }

  /** Generation g > 0 suffixes {@code -g<g>} to names but {@code baseChains} and kept sets. */
  public NftText(IpFamily family, int generation, Set<String> baseChains) {
    this.table = NftSyntax.family(family) + " " + NftNames.TABLE;
    this.suffix = generation == 0 ? "" : GENERATION_MARK + generation;
    this.baseChains = Set.copyOf(baseChains);
  }

  /** {@code service-ips-g1}. */
  public static final String GENERATION_MARK = "-g";

  /** Sets holding state a full sync must not lose (affinity, counting) keep their names. */
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
   * A quoted nft string escapes nothing, so all but {@code [A-Za-z0-9._/:-]} becomes {@code _}, cut
   * to nft's limit. Returns {@code text} itself when clean, so elements share their port's string.
   */
  public static String comment(String text) {
    var clean = RuleComment.sanitise(text, "", RuleComment.NFT_MAX);
    return clean.equals(text) ? text : clean;
  }

  /** Our own set comment with a quote, backslash or control character made {@code _}. */
  public static String setComment(String text) {
    var out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c == '"' || c == '\\' || c < 0x20 || c == 0x7f ? '_' : c);
    }
    return out.toString();
  }

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
