package dev.proxima.proxy.render.nft;

import static dev.proxima.proxy.nftables.NftNames.AFFINITY_PREFIX;
import static dev.proxima.proxy.nftables.NftNames.STICKY_PREFIX;

import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ZoneSpill;
import dev.proxima.proxy.nftables.NftSyntax;
import dev.proxima.proxy.route.RouteDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * ClientIP affinity (a map element cannot remember a client): a {@code sticky-<hash>} chain per
 * list checks the per-endpoint timeout sets, then picks at random; an {@code affinity-<hash>} chain
 * per endpoint, shared by the port's lists whichever way in, records the client and DNATs.
 */
final class AffinityChains {
  private final IpFamily family;
  private final List<String> leadingRules;
  private final Map<String, List<String>> chains = new HashMap<>();
  private final Map<String, String> sets = new HashMap<>();
  private final Map<String, String> nameByKey = new HashMap<>();
  private final Map<String, String> keyByName = new HashMap<>();
  private final UnaryOperator<String> nameHash;

  AffinityChains(IpFamily family, List<String> leadingRules, UnaryOperator<String> nameHash) {
    this.family = family;
    this.nameHash = nameHash;
    this.leadingRules = List.copyOf(leadingRules);
  }

  /** With a spill, a client any ready endpoint remembers keeps it; new ones take the draw. */
  String chain(ServicePort sp, String kind, List<Endpoint> list, ZoneSpill spill) {
    String base = sp.name() + "/" + sp.protocol().lower();
    String listKey = base + "#" + kind;
    String existing = nameByKey.get(listKey);
    if (existing != null) {
      return existing; // the same list, reached from another address or the NodePort
    }
    long timeout = RouteDecision.seconds(sp.stickyTimeout());
    String chain = hashedName(STICKY_PREFIX, listKey);
    List<String> chainRules = new ArrayList<>(leadingRules);
    List<String> endpointChains = new ArrayList<>();
    List<String> spreadChains = new ArrayList<>();
    Set<String> distinct = new LinkedHashSet<>();
    var spreads = spill.spills();
    List<Endpoint> all = new ArrayList<>(list);
    if (spreads) {
      all.addAll(spill.spread());
    }
    for (int index = 0; index < all.size(); index++) {
      Endpoint target = all.get(index);
      String addressPort = NftSyntax.addressPort(family, target.ip(), target.port());
      // The timeout is in the name: a set kept by name and declared again keeps its old timeout.
      String endpointKey = base + "@" + addressPort + "~" + timeout;
      String endpoint = nameByKey.get(endpointKey);
      if (endpoint == null) {
        endpoint = hashedName(AFFINITY_PREFIX, endpointKey);
        String type = NftSyntax.addressType(family);
        sets.put(
            endpoint, "type %s ; flags dynamic,timeout ; timeout %ss ;".formatted(type, timeout));
        String dnat = "meta l4proto %s dnat %s to %s";
        chains.put(
            endpoint,
            List.of(
                "update @" + endpoint + " { " + NftSyntax.saddr(family) + " }",
                dnat.formatted(sp.protocol().lower(), NftSyntax.family(family), addressPort)));
      }
      (index < list.size() ? endpointChains : spreadChains).add(endpoint);
      if (distinct.add(endpoint)) {
        chainRules.add(NftSyntax.saddr(family) + " @" + endpoint + " goto " + endpoint);
      }
    }
    if (spreads) {
      chainRules.add(RenderPass.draw(spill) + " " + choice(endpointChains));
      chainRules.add(choice(spreadChains));
    } else {
      chainRules.add(choice(endpointChains));
    }
    chains.put(chain, chainRules);
    return chain;
  }

  private static String choice(List<String> endpointChains) {
    var choices = new StringJoiner(", ", "vmap { ", " }");
    for (int i = 0; i < endpointChains.size(); i++) {
      choices.add(i + " : goto " + endpointChains.get(i));
    }
    return "numgen random mod " + endpointChains.size() + " " + choices;
  }

  Map<String, List<String>> chains() {
    return new TreeMap<>(chains);
  }

  Map<String, String> sets() {
    return new TreeMap<>(sets);
  }

  /** 10 characters of the hash; longer should an earlier key have that name (at 50 bits, never). */
  private String hashedName(String prefix, String key) {
    String hash = nameHash.apply(key).toLowerCase(Locale.ROOT);
    for (int length = 10; ; length += 6) {
      String name = prefix + hash.substring(0, Math.min(length, hash.length()));
      String owner = keyByName.putIfAbsent(name, key);
      if (owner == null || owner.equals(key) || length >= hash.length()) {
        nameByKey.put(key, name);
        return name;
      }
    }
  }
}
