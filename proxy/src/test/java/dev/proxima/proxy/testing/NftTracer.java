package dev.proxima.proxy.testing;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Follows the first packet of a connection through the rules a {@link FakeNft} holds, the way
 * netfilter walks them: the base chains of each hook by priority (prerouting, then input or forward
 * and postrouting for a packet that arrives on an interface; output, postrouting, and input for one
 * the host sends to itself), rule by rule, with jumps, gotos, returns and verdict maps.
 *
 * <p>It understands the subset of nft that Proxima renders (address, protocol, port, interface
 * name, mark, conntrack state and status, fib and numgen matches; set and map lookups on
 * concatenated keys; mark set, dnat through a map, masquerade, counter; accept, drop, reject, jump,
 * goto, return) and compiles every rule of the table before it traces anything, so a rule of
 * another shape fails the trace loudly wherever it stands: new renderer syntax cannot pass
 * unnoticed. A {@code numgen random mod N} is followed for each of its N values ({@link
 * #traceAll}), or for one value given ({@link #trace}).
 */
public final class NftTracer {
  private static final Pattern BASE_CHAIN =
      Pattern.compile("\\{ type (\\w+) hook (\\w+) priority (-?\\d+) ; }");

  private final FakeNft nft;
  private final List<String> localAddresses;
  private final Map<String, List<List<Step>>> chains = new HashMap<>();
  private final Map<String, List<String>> hooks = new HashMap<>();

  /**
   * A packet: the first of a connection.
   *
   * @param inputInterface the interface it arrives on; null for a packet the host sends
   */
  public record Packet(
      String source, String destination, String protocol, int port, String inputInterface) {}

  /** What became of a packet. */
  public enum Verdict {
    /** Its destination was rewritten to {@link Trace#endpoint}. */
    DNAT,
    DROP,
    REJECT,
    /** Accepted as it came: the rules left it alone. */
    NOT_HANDLED
  }

  /**
   * One trace.
   *
   * @param endpoint {@code address:port} (IPv6 in brackets) after a dnat; null without one
   * @param masquerade whether a masquerade statement ran
   * @param path the chains it went through, in order
   */
  public record Trace(Verdict verdict, String endpoint, boolean masquerade, List<String> path) {}

  /**
   * @param localAddresses the node's addresses: what {@code fib ... type local} matches and what
   *     the routing delivers to the host rather than forwards
   */
  public NftTracer(FakeNft nft, List<String> localAddresses) {
    this.nft = nft;
    this.localAddresses = localAddresses.stream().map(NftTracer::canonical).toList();
    var bases = new ArrayList<String[]>();
    nft.chainDeclarations()
        .forEach(
            (name, spec) -> {
              var rules = new ArrayList<List<Step>>();
              for (var rule : nft.rulesOf(name)) {
                rules.add(compile(rule));
              }
              chains.put(name, rules);
              if (!spec.isEmpty()) {
                var hook = BASE_CHAIN.matcher(spec);
                if (!hook.matches()) {
                  throw new IllegalStateException("chain " + name + ": unknown hook " + spec);
                }
                bases.add(new String[] {hook.group(2), hook.group(3), name});
              }
            });
    bases.sort(Comparator.comparingInt((String[] base) -> Integer.parseInt(base[1])));
    bases.forEach(base -> hooks.computeIfAbsent(base[0], h -> new ArrayList<>()).add(base[2]));
  }

  /** The packet's traces, one per value each {@code numgen random mod N} on its way can take. */
  public List<Trace> traceAll(Packet packet) {
    var traces = new ArrayList<Trace>();
    int choices = 1;
    for (int choice = 0; choice < choices; choice++) {
      var flow = new Flow(packet, choice);
      traces.add(run(flow));
      choices = Math.max(choices, flow.widest);
    }
    return traces;
  }

  /**
   * The packet's trace when every {@code numgen random mod N} on its way draws {@code draw} mod N:
   * a weighted draw {@code numgen random mod 1000 < K} passes for a draw below K.
   */
  public Trace trace(Packet packet, int draw) {
    return run(new Flow(packet, draw));
  }

  private Trace run(Flow flow) {
    var verdict = Control.ACCEPT;
    if (flow.inputInterface == null) {
      verdict = hook("output", flow);
      if (passed(verdict)) {
        verdict = hook("postrouting", flow);
      }
      if (passed(verdict) && isLocal(flow.daddr)) {
        verdict = hook("input", flow);
      }
    } else {
      verdict = hook("prerouting", flow);
      if (passed(verdict) && isLocal(flow.daddr)) {
        verdict = hook("input", flow);
      } else if (passed(verdict)) {
        verdict = hook("forward", flow);
        if (passed(verdict)) {
          verdict = hook("postrouting", flow);
        }
      }
    }
    var kind =
        switch (verdict) {
          case DROP -> Verdict.DROP;
          case REJECT -> Verdict.REJECT;
          default -> flow.endpoint != null ? Verdict.DNAT : Verdict.NOT_HANDLED;
        };
    return new Trace(kind, flow.endpoint, flow.masquerade, List.copyOf(flow.path));
  }

  private static boolean passed(Control verdict) {
    return verdict != Control.DROP && verdict != Control.REJECT;
  }

  private Control hook(String hook, Flow flow) {
    for (var chain : hooks.getOrDefault(hook, List.of())) {
      var verdict = chain(chain, flow);
      if (!passed(verdict)) {
        return verdict;
      }
    }
    return Control.ACCEPT;
  }

  private Control chain(String name, Flow flow) {
    var rules = chains.get(name);
    if (rules == null) {
      throw new IllegalStateException("no chain " + name);
    }
    flow.path.add(name);
    for (var rule : rules) {
      var control = rule(rule, flow);
      if (control != Control.MISS) {
        return control;
      }
    }
    return Control.RETURN;
  }

  /** Runs a rule's steps; MISS when it does not match or falls through to the next rule. */
  private static Control rule(List<Step> steps, Flow flow) {
    for (var step : steps) {
      var control = step.run(flow);
      if (control != Control.ON) {
        return control;
      }
    }
    return Control.MISS;
  }

  /** What a step says: go on, try the next rule, leave the chain, or a verdict. */
  private enum Control {
    ON,
    MISS,
    RETURN,
    ACCEPT,
    DROP,
    REJECT
  }

  private interface Step {
    Control run(Flow flow);
  }

  /** The packet as it goes, and what the trace learns. */
  private static final class Flow {
    final String saddr;
    final String protocol;
    final String inputInterface;
    final String originalDaddr;
    final int originalPort;
    final int choice;
    final List<String> path = new ArrayList<>();
    String daddr;
    int port;
    long mark;
    String endpoint;
    boolean masquerade;
    int widest = 1;

    Flow(Packet packet, int choice) {
      this.saddr = canonical(packet.source());
      this.daddr = canonical(packet.destination());
      this.originalDaddr = daddr;
      this.protocol = packet.protocol().toLowerCase(Locale.ROOT);
      this.port = packet.port();
      this.originalPort = port;
      this.inputInterface = packet.inputInterface();
      this.choice = choice;
    }
  }

  // Compiling a rule.

  private List<Step> compile(String rule) {
    var tokens = new Tokens(rule);
    var steps = new ArrayList<Step>();
    try {
      while (!tokens.done()) {
        steps.add(step(tokens));
      }
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot trace rule \"" + rule + "\": " + e.getMessage(), e);
    }
    return steps;
  }

  private Step step(Tokens tokens) {
    var word = tokens.peek();
    switch (word) {
      case "counter" -> {
        tokens.next();
        if (tokens.peekIs("name")) {
          tokens.next();
          tokens.next();
        }
        return flow -> Control.ON;
      }
      case "comment" -> {
        tokens.next();
        tokens.next();
        return flow -> Control.ON;
      }
      case "update" -> {
        // Remembers the client in a timeout set; a trace follows one first packet, so nothing.
        tokens.next();
        setName(tokens.next());
        tokens.next();
        return flow -> Control.ON;
      }
      case "masquerade" -> {
        tokens.next();
        if (tokens.peekIs("fully-random") || tokens.peekIs("random")) {
          tokens.next();
        }
        tokens.requireEnd();
        return flow -> {
          flow.masquerade = true;
          return Control.ACCEPT;
        };
      }
      case "dnat" -> {
        return dnat(tokens);
      }
      case "accept", "drop", "reject", "return", "jump", "goto" -> {
        var verdict = verdict(tokens);
        tokens.requireEnd();
        return verdict;
      }
      default -> {
        if (isMarkSet(tokens)) {
          return markSet(tokens);
        }
        return match(tokens);
      }
    }
  }

  private Step verdict(Tokens tokens) {
    var word = tokens.next();
    return switch (word) {
      case "accept" -> flow -> Control.ACCEPT;
      case "drop" -> flow -> Control.DROP;
      case "reject" -> flow -> Control.REJECT;
      case "return" -> flow -> Control.RETURN;
      case "jump" -> {
        var target = tokens.next();
        yield flow -> {
          var control = chain(target, flow);
          return control == Control.RETURN ? Control.MISS : control;
        };
      }
      case "goto" -> {
        var target = tokens.next();
        yield flow -> chain(target, flow);
      }
      default -> throw new IllegalStateException("unknown verdict " + word);
    };
  }

  private Step dnat(Tokens tokens) {
    tokens.expect("dnat");
    var family = tokens.next();
    if (!family.equals("ip") && !family.equals("ip6")) {
      throw new IllegalStateException("dnat of family " + family);
    }
    tokens.expect("to");
    if (tokens.peek() != null && tokens.peek().matches("[0-9.]+:\\d+|\\[[0-9a-fA-F:]+]:\\d+")) {
      // One fixed endpoint, as an affinity chain writes it.
      var fixed = tokens.next();
      tokens.requireEnd();
      int colon = fixed.lastIndexOf(':');
      var address = canonical(fixed.substring(0, colon).replace("[", "").replace("]", ""));
      int port = Integer.parseInt(fixed.substring(colon + 1));
      return flow -> {
        flow.daddr = address;
        flow.port = port;
        flow.endpoint = (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
        return Control.ACCEPT;
      };
    }
    var key = concatenation(tokens);
    tokens.expect("map");
    var map = tokens.next();
    if (!map.startsWith("{")) {
      setName(map);
    }
    tokens.requireEnd();
    return flow -> {
      var value = lookupIn(map, values(key, flow));
      if (value == null) {
        return Control.MISS;
      }
      var parts = value.split(" \\. ");
      if (parts.length != 2) {
        throw new IllegalStateException("map " + map + ": not address . port: " + value);
      }
      flow.daddr = canonical(parts[0]);
      flow.port = Integer.parseInt(parts[1]);
      flow.endpoint =
          (flow.daddr.contains(":") ? "[" + flow.daddr + "]" : flow.daddr) + ":" + flow.port;
      return Control.ACCEPT;
    };
  }

  private static boolean isMarkSet(Tokens tokens) {
    return (tokens.peekIs("mark") && tokens.peekIs(1, "set"))
        || (tokens.peekIs("meta") && tokens.peekIs(1, "mark") && tokens.peekIs(2, "set"));
  }

  /** {@code mark set mark or|xor|and N}. */
  private Step markSet(Tokens tokens) {
    if (tokens.peekIs("meta")) {
      tokens.next();
    }
    tokens.expect("mark");
    tokens.expect("set");
    var value = selector(tokens);
    return flow -> {
      flow.mark = Long.parseLong(value.apply(flow));
      return Control.ON;
    };
  }

  /** A match: a concatenation compared, looked up in a set, or looked up in a verdict map. */
  private Step match(Tokens tokens) {
    var key = concatenation(tokens);
    if (tokens.peekIs("vmap")) {
      tokens.next();
      var map = tokens.next();
      if (!map.startsWith("{")) {
        setName(map);
      }
      tokens.requireEnd();
      return flow -> {
        var verdict = lookupIn(map, values(key, flow));
        if (verdict == null) {
          return Control.MISS;
        }
        return rule(compileVerdict(verdict), flow);
      };
    }
    if (tokens.peekIs("<")) {
      // A weighted draw: numgen random mod N < K.
      tokens.next();
      int bound = Integer.parseInt(tokens.next());
      if (key.size() != 1) {
        throw new IllegalStateException("a concatenation compared with <");
      }
      return flow -> Integer.parseInt(key.get(0).apply(flow)) < bound ? Control.ON : Control.MISS;
    }
    boolean negated = false;
    if (tokens.peekIs("!=")) {
      tokens.next();
      negated = true;
    } else if (tokens.peekIs("==")) {
      tokens.next();
    }
    var operand = tokens.next();
    boolean not = negated;
    if (operand.startsWith("@")) {
      var set = setName(operand);
      return flow -> (lookup(set, values(key, flow)) != null) != not ? Control.ON : Control.MISS;
    }
    if (key.size() != 1) {
      throw new IllegalStateException("a concatenation compared with " + operand);
    }
    var patterns = operand.startsWith("{") ? anonymousSet(operand) : List.of(operand);
    patterns.forEach(NftTracer::checkPattern);
    return flow -> {
      var value = key.get(0).apply(flow);
      boolean found = patterns.stream().anyMatch(pattern -> matches(pattern, value));
      return found != not ? Control.ON : Control.MISS;
    };
  }

  /** A map's verdict, e.g. {@code goto lb-1}, as a step. */
  private List<Step> compileVerdict(String text) {
    var tokens = new Tokens(text);
    var verdict = verdict(tokens);
    tokens.requireEnd();
    return List.of(verdict);
  }

  private List<Function<Flow, String>> concatenation(Tokens tokens) {
    var parts = new ArrayList<Function<Flow, String>>();
    parts.add(selector(tokens));
    while (tokens.peekIs(".")) {
      tokens.next();
      parts.add(selector(tokens));
    }
    return parts;
  }

  /** One value of the packet, as a string a set's elements compare with. */
  private Function<Flow, String> selector(Tokens tokens) {
    var word = tokens.next();
    return switch (word) {
      case "ip", "ip6" -> address(tokens.next());
      case "meta" -> {
        var what = tokens.next();
        if (what.equals("mark")) {
          yield mark(tokens);
        }
        if (!what.equals("l4proto")) {
          throw new IllegalStateException("meta " + what);
        }
        yield flow -> flow.protocol;
      }
      case "mark" -> mark(tokens);
      case "th" -> {
        tokens.expect("dport");
        yield flow -> String.valueOf(flow.port);
      }
      case "numgen" -> {
        tokens.expect("random");
        tokens.expect("mod");
        int modulus = Integer.parseInt(tokens.next());
        yield flow -> {
          flow.widest = Math.max(flow.widest, modulus);
          return String.valueOf(flow.choice % modulus);
        };
      }
      case "ct" -> conntrack(tokens);
      case "fib" -> {
        var which = tokens.next();
        tokens.expect("type");
        if (!which.equals("saddr") && !which.equals("daddr")) {
          throw new IllegalStateException("fib " + which);
        }
        yield flow ->
            isLocal(which.equals("saddr") ? flow.saddr : flow.daddr) ? "local" : "unicast";
      }
      case "iifname" -> flow -> flow.inputInterface == null ? "" : flow.inputInterface;
      default -> throw new IllegalStateException("unknown expression " + word);
    };
  }

  private static Function<Flow, String> address(String which) {
    return switch (which) {
      case "saddr" -> flow -> flow.saddr;
      case "daddr" -> flow -> flow.daddr;
      default -> throw new IllegalStateException("ip " + which);
    };
  }

  private static Function<Flow, String> conntrack(Tokens tokens) {
    var what = tokens.next();
    return switch (what) {
      case "state" -> flow -> "new"; // a trace follows a connection's first packet
      case "status" -> flow -> flow.endpoint != null ? "dnat" : "none";
      case "original" -> {
        var field = tokens.next();
        if (field.equals("proto-dst")) {
          yield flow -> String.valueOf(flow.originalPort);
        }
        if ((field.equals("ip") || field.equals("ip6")) && tokens.next().equals("daddr")) {
          yield flow -> flow.originalDaddr;
        }
        throw new IllegalStateException("ct original " + field);
      }
      default -> throw new IllegalStateException("ct " + what);
    };
  }

  /** The mark, with {@code & M | V}, {@code and M}, {@code or V}, {@code xor V} applied. */
  private static Function<Flow, String> mark(Tokens tokens) {
    var operations = new ArrayList<Function<Long, Long>>();
    while (true) {
      var operator = tokens.peek();
      if (operator == null) {
        break;
      }
      Function<Long, Function<Long, Long>> apply =
          switch (operator) {
            case "&", "and" -> operand -> value -> value & operand;
            case "|", "or" -> operand -> value -> value | operand;
            case "^", "xor" -> operand -> value -> value ^ operand;
            default -> null;
          };
      if (apply == null) {
        break;
      }
      tokens.next();
      operations.add(apply.apply(number(tokens.next())));
    }
    return flow -> {
      long value = flow.mark;
      for (var operation : operations) {
        value = operation.apply(value);
      }
      return String.valueOf(value);
    };
  }

  // Sets and values.

  private static String setName(String reference) {
    if (!reference.startsWith("@")) {
      throw new IllegalStateException("not a set reference: " + reference);
    }
    return reference.substring(1);
  }

  private static List<String> values(List<Function<Flow, String>> key, Flow flow) {
    return key.stream().map(part -> part.apply(flow)).toList();
  }

  /**
   * The value of the element whose key matches (the key itself for a set element); null when none
   * does.
   */
  private String lookup(String set, List<String> key) {
    if (nft.declaration(set) == null) {
      throw new IllegalStateException("no set " + set);
    }
    for (var element : nft.elementsOf(set).values()) {
      var text = element.replaceAll(" comment \"[^\"]*\"", "");
      int colon = text.indexOf(" : ");
      var elementKey = (colon < 0 ? text : text.substring(0, colon)).strip().split(" \\. ");
      if (elementKey.length != key.size()) {
        throw new IllegalStateException("set " + set + ": key " + text + " is not like " + key);
      }
      boolean all = true;
      for (int i = 0; i < elementKey.length && all; i++) {
        all = matches(elementKey[i], key.get(i));
      }
      if (all) {
        return colon < 0 ? text.strip() : text.substring(colon + 3).strip();
      }
    }
    return null;
  }

  /** A lookup in a named map ({@code @name}) or in an anonymous one written in the rule. */
  private String lookupIn(String map, List<String> key) {
    if (!map.startsWith("{")) {
      return lookup(setName(map), key);
    }
    for (var item : anonymousSet(map)) {
      int colon = item.indexOf(" : ");
      if (colon < 0) {
        throw new IllegalStateException("not a map element: " + item);
      }
      var elementKey = item.substring(0, colon).strip().split(" \\. ");
      boolean all = elementKey.length == key.size();
      for (int i = 0; i < elementKey.length && all; i++) {
        all = matches(elementKey[i], key.get(i));
      }
      if (all) {
        return item.substring(colon + 3).strip();
      }
    }
    return null;
  }

  private static List<String> anonymousSet(String token) {
    var inner = token.substring(1, token.length() - 1);
    var items = new ArrayList<String>();
    for (var item : inner.split(",")) {
      if (!item.isBlank()) {
        items.add(item.strip());
      }
    }
    return items;
  }

  private static final Pattern PATTERN =
      Pattern.compile(
          "\"[A-Za-z0-9_.*-]+\"|[0-9a-fA-F:.]+(/\\d+)?|0x[0-9a-fA-F]+|\\d+|[a-z]+|"
              + "[0-9a-fA-F:.]+-[0-9a-fA-F:.]+");

  /** Fails on a literal the tracer would compare wrongly. */
  private static void checkPattern(String pattern) {
    if (!PATTERN.matcher(pattern).matches()) {
      throw new IllegalStateException("unknown value " + pattern);
    }
  }

  /** Whether a value matches a pattern: a literal, a CIDR, a range, or a quoted name glob. */
  public static boolean matches(String pattern, String value) {
    if (pattern.startsWith("\"")) {
      var name = pattern.substring(1, pattern.length() - 1);
      return name.endsWith("*")
          ? value.startsWith(name.substring(0, name.length() - 1))
          : value.equals(name);
    }
    if (pattern.contains("/")) {
      return isAddress(value) && inCidr(pattern, value);
    }
    int dash = pattern.indexOf('-');
    if (dash > 0 && isAddress(pattern.substring(0, dash))) {
      if (!isAddress(value)) {
        return false;
      }
      var low = numeric(pattern.substring(0, dash));
      var high = numeric(pattern.substring(dash + 1));
      var at = numeric(value);
      return at.compareTo(low) >= 0 && at.compareTo(high) <= 0;
    }
    return normal(pattern).equals(normal(value));
  }

  private static String normal(String value) {
    if (value.matches("0x[0-9a-fA-F]+|\\d+")) {
      return String.valueOf(number(value));
    }
    return isAddress(value) ? canonical(value) : value;
  }

  private static long number(String text) {
    return text.startsWith("0x") ? Long.parseLong(text.substring(2), 16) : Long.parseLong(text);
  }

  private boolean isLocal(String address) {
    return localAddresses.contains(canonical(address))
        || inCidr("127.0.0.0/8", address)
        || canonical(address).equals(canonical("::1"));
  }

  private static boolean isAddress(String text) {
    return text.contains(":") || text.matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
  }

  private static boolean inCidr(String cidr, String address) {
    var slash = cidr.indexOf('/');
    var network = cidr.substring(0, slash);
    if (network.contains(":") != address.contains(":")) {
      return false;
    }
    int bits = network.contains(":") ? 128 : 32;
    int shift = bits - Integer.parseInt(cidr.substring(slash + 1));
    return numeric(network).shiftRight(shift).equals(numeric(address).shiftRight(shift));
  }

  private static BigInteger numeric(String address) {
    return new BigInteger(1, literal(address).getAddress());
  }

  static String canonical(String address) {
    return isAddress(address) ? literal(address).getHostAddress() : address;
  }

  private static InetAddress literal(String address) {
    try {
      return InetAddress.getByName(address);
    } catch (UnknownHostException notALiteral) {
      throw new IllegalArgumentException(address + " is not an IP address", notALiteral);
    }
  }

  /** A rule's words; a quoted string and a braced anonymous set are one word each. */
  private static final class Tokens {
    private final List<String> words = new ArrayList<>();
    private int at;

    Tokens(String text) {
      int i = 0;
      while (i < text.length()) {
        char c = text.charAt(i);
        if (c == ' ') {
          i++;
          continue;
        }
        int end;
        if (c == '"') {
          end = text.indexOf('"', i + 1) + 1;
        } else if (c == '{') {
          end = text.indexOf('}', i) + 1;
        } else {
          end = text.indexOf(' ', i);
          end = end < 0 ? text.length() : end;
        }
        if (end <= i) {
          throw new IllegalStateException("unbalanced quote or brace in " + text);
        }
        words.add(text.substring(i, end));
        i = end;
      }
    }

    boolean done() {
      return at >= words.size();
    }

    String peek() {
      return done() ? null : words.get(at);
    }

    boolean peekIs(String word) {
      return peekIs(0, word);
    }

    boolean peekIs(int ahead, String word) {
      return at + ahead < words.size() && words.get(at + ahead).equals(word);
    }

    String next() {
      if (done()) {
        throw new IllegalStateException("ends too early");
      }
      return words.get(at++);
    }

    void expect(String word) {
      var found = next();
      if (!found.equals(word)) {
        throw new IllegalStateException("expected " + word + ", found " + found);
      }
    }

    /** A verdict or a terminal statement ends the rule; a comment may follow it. */
    void requireEnd() {
      if (peekIs("comment") && at + 2 == words.size()) {
        at += 2;
      }
      if (!done()) {
        throw new IllegalStateException("unexpected " + words.subList(at, words.size()));
      }
    }
  }

  /** The distinct endpoints of traces, in order. */
  public static Set<String> endpoints(List<Trace> traces) {
    var endpoints = new LinkedHashSet<String>();
    traces.forEach(
        trace -> {
          if (trace.endpoint() != null) {
            endpoints.add(trace.endpoint());
          }
        });
    return endpoints;
  }
}
