package dev.proxima.proxy.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plan's warnings as a tenant cannot flood them: grouped by object and reason, one line per
 * group with a count and a few examples, told only when a group appears or changes. A slice of
 * 10,000 multicast endpoints is one line when it is written, not 10,000 per sync.
 *
 * <p>The reason is one of a fixed, small vocabulary ({@link #reasonOf}), so it can label a metric;
 * the object is the Service or EndpointSlice the warning names. Memory is bounded: at most {@link
 * #MAX_GROUPS} groups are remembered (the oldest goes first), and a full sync replaces them all, so
 * groups of deleted objects are forgotten.
 */
public final class PlanWarnings {
  /** How many examples a group's line quotes. */
  static final int EXAMPLES = 3;

  /** An example is cut to this many characters: a tenant's strings cannot make a line long. */
  static final int EXAMPLE_LENGTH = 240;

  /** The most groups remembered between syncs. */
  public static final int MAX_GROUPS = 10_000;

  /** One object's warnings of one reason. */
  public record Group(String object, String reason, int count, List<String> examples) {
    public Group {
      examples = List.copyOf(examples);
    }

    /** The one line that tells this group. */
    public String line() {
      var line = new StringBuilder(object).append(": ");
      line.append(count).append(count == 1 ? " warning (" : " warnings (").append(reason);
      line.append(")");
      for (int i = 0; i < examples.size(); i++) {
        line.append(i == 0 ? ", e.g. " : "; ").append(examples.get(i));
      }
      if (count > examples.size()) {
        line.append("; …");
      }
      return line.toString();
    }
  }

  /** Where changed groups are told. */
  public interface Sink {
    void changed(Group group);
  }

  private record Key(String object, String reason) {}

  private final LinkedHashMap<Key, Group> known =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Group> eldest) {
          return size() > MAX_GROUPS;
        }
      };

  /** The warnings of a full plan: they replace every group; new or changed ones are told. */
  public synchronized void full(List<String> warnings, Sink sink) {
    var groups = group(warnings);
    var before = new LinkedHashMap<>(known);
    known.clear();
    for (var group : groups) {
      var key = new Key(group.object(), group.reason());
      if (!group.equals(before.get(key))) {
        sink.changed(group);
      }
      known.put(key, group);
    }
  }

  /** The warnings of some objects: their groups are updated; new or changed ones are told. */
  public synchronized void partial(List<String> warnings, Sink sink) {
    for (var group : group(warnings)) {
      var key = new Key(group.object(), group.reason());
      if (!group.equals(known.get(key))) {
        sink.changed(group);
      }
      known.remove(key);
      known.put(key, group);
    }
  }

  /** The warnings remembered now, per reason (sorted): what the metric shows. */
  public synchronized Map<String, Integer> countsByReason() {
    var counts = new TreeMap<String, Integer>();
    for (var reason : REASONS) {
      counts.put(reason[1], 0);
    }
    counts.put(OTHER, 0);
    known.values().forEach(group -> counts.merge(group.reason(), group.count(), Integer::sum));
    return counts;
  }

  /** How many groups are remembered. */
  public synchronized int size() {
    return known.size();
  }

  /** Groups {@code warnings} by object and reason, in first-seen order: linear in their number. */
  public static List<Group> group(List<String> warnings) {
    var byKey = new LinkedHashMap<Key, List<String>>();
    var counts = new LinkedHashMap<Key, Integer>();
    for (var warning : warnings) {
      var key = new Key(objectOf(warning), reasonOf(warning));
      counts.merge(key, 1, Integer::sum);
      var examples = byKey.computeIfAbsent(key, k -> new ArrayList<>(EXAMPLES));
      if (examples.size() < EXAMPLES) {
        examples.add(cut(warning));
      }
    }
    var result = new ArrayList<Group>(byKey.size());
    byKey.forEach(
        (key, examples) ->
            result.add(new Group(key.object(), key.reason(), counts.get(key), examples)));
    return result;
  }

  /** The lines of {@link #group}: what {@code explain} and {@code render} print. */
  public static List<String> lines(List<String> warnings) {
    return group(warnings).stream().map(Group::line).toList();
  }

  /**
   * The object a warning names: {@code EndpointSlice ns/name}, or {@code Service ns/name} for the
   * catalog's and the route decision's warnings (which start with the Service or its port), else
   * {@code proxy}.
   */
  static String objectOf(String warning) {
    if (warning.startsWith("EndpointSlice ")) {
      return "EndpointSlice " + token(warning, "EndpointSlice ".length());
    }
    var first = token(warning, 0);
    int slash = first.indexOf('/');
    if (slash > 0 && first.indexOf(' ') < 0) {
      int colon = first.indexOf(':', slash);
      return "Service " + (colon < 0 ? first : first.substring(0, colon));
    }
    return "proxy";
  }

  private static String token(String text, int from) {
    int end = from;
    while (end < text.length() && text.charAt(end) != ' ') {
      end++;
    }
    var token = text.substring(from, end);
    return token.endsWith(":") ? token.substring(0, token.length() - 1) : token;
  }

  /** Reasons by a phrase the warning contains, first match wins: a fixed, small vocabulary. */
  private static final String[][] REASONS = {
    {"externalIP is not programmed", "external-ip-forbidden"},
    {"would loop", "nodeport-loop"},
    {"cap of", "cap"},
    {"collides with", "address-collision"},
    {"accept no source", "no-source-range"},
    {"is not a CIDR", "not-a-cidr"},
    {" CIDR; ignored", "not-a-cidr"},
    {"is not an IP", "not-an-address"},
    {"address, never a Service endpoint", "special-address"},
    {" address; ignored", "special-address"},
    {"out of range", "out-of-range"},
    {"given twice", "duplicate"},
    {"timeoutSeconds", "affinity-timeout"},
    {"hint ignored", "hint-without-name"},
    {"without metadata", "no-metadata"},
    {": null", "null-item"},
  };

  private static final String OTHER = "other";

  /** The reason of a warning, from {@link #REASONS}; {@code other} when none matches. */
  static String reasonOf(String warning) {
    for (var reason : REASONS) {
      if (warning.contains(reason[0])) {
        return reason[1];
      }
    }
    return OTHER;
  }

  private static String cut(String warning) {
    var flat = warning.replace('\n', ' ').replace('\r', ' ');
    return flat.length() <= EXAMPLE_LENGTH ? flat : flat.substring(0, EXAMPLE_LENGTH) + "…";
  }
}
