package dev.proxima.proxy.render.nft;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a rendered script back: its chains, sets, rules and elements, by name. */
record Script(String text) {
  private static final Pattern CHAIN = Pattern.compile("^add chain ip6? proxima (\\S+)");
  private static final Pattern SET = Pattern.compile("^add (?:set|map) ip6? proxima (\\S+) ");

  List<String> lines() {
    return text.lines().toList();
  }

  List<String> chains() {
    return names(CHAIN);
  }

  List<String> sets() {
    return names(SET);
  }

  /** The rules of one chain, without the {@code add rule <family> proxima <chain>} prefix. */
  List<String> rules(String chain) {
    List<String> out = new ArrayList<>();
    for (String line : lines()) {
      Matcher m =
          Pattern.compile("^add rule ip6? proxima " + Pattern.quote(chain) + " (.*)$")
              .matcher(line);
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Every element added to one set or map, one per entry, without the separating commas. */
  List<String> elements(String set) {
    List<String> out = new ArrayList<>();
    boolean inside = false;
    for (String line : lines()) {
      if (inside) {
        if (line.equals("}")) {
          inside = false;
        } else {
          String element = line.strip();
          out.add(element.endsWith(",") ? element.substring(0, element.length() - 1) : element);
        }
      } else if (line.matches("^add element ip6? proxima " + Pattern.quote(set) + " \\{$")) {
        inside = true;
      }
    }
    return out;
  }

  private List<String> names(Pattern pattern) {
    List<String> out = new ArrayList<>();
    for (String line : lines()) {
      Matcher m = pattern.matcher(line);
      if (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }
}
