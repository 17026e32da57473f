package dev.proxima.proxy.plan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The plan's warnings as a tenant cannot flood them: grouped by object and reason, one line per
 * group with a count and a few examples, told only when a group appears or changes. A slice of
 * 10,000 multicast endpoints is one line when it is written, not 10,000 per sync.
 *
 * <p>The reason is one of a fixed, small vocabulary ({@link #reasonOf}), so it can label a metric;
 * the object is the Service or EndpointSlice the warning names. Memory is bounded: at most {@link
 * #MAX_GROUPS} groups are remembered and named one by one. A remembered group keeps its place while
 * its object has warnings, and a full sync forgets the groups of objects that have none any more.
 * Objects past the bound are not named: a full sync sums them up per reason in one line (told when
 * their number changes), and a partial sync that meets one tells that line once per reason until
 * the next full sync. So however many objects a tenant creates, deletes and recreates, the log gets
 * at most one line per remembered group change and one per reason and sync, never a line again for
 * a group that did not change.
 */
public final class PlanWarnings {
  /** How many examples a group's line quotes. */
  static final int EXAMPLES = 3;

  /** An example is cut to this many characters: a tenant's strings cannot make a line long. */
  static final int EXAMPLE_LENGTH = 240;

  /** The most groups remembered and named one by one. */
  public static final int MAX_GROUPS = 10_000;

  /** What a summary's object is: the objects past {@link #MAX_GROUPS}. */
  public static final String MORE_OBJECTS = "more objects";

  /**
   * One object's warnings of one reason, or, when {@code object} is {@link #MORE_OBJECTS}, the
   * warnings of one reason of the objects past the bound.
   *
   * @param objects how many objects the group sums up: 1 for one object's group; for a summary the
   *     number a full sync counted, or 0 when a partial sync met more and cannot count them
   */
  public record Group(String object, String reason, int count, List<String> examples, int objects) {
    public Group {
      examples = List.copyOf(examples);
    }

    public String line() {
      var line = new StringBuilder();
      if (!MORE_OBJECTS.equals(object)) {
        line.append(object).append(": ");
        line.append(count).append(count == 1 ? " warning (" : " warnings (").append(reason);
        line.append(")");
      } else if (objects > 0) {
        line.append(objects).append(" more objects have ").append(count).append(" warnings (");
        line.append(reason).append("), not named one by one past the first ").append(MAX_GROUPS);
        line.append(" objects with warnings");
      } else {
        line.append("More objects have warnings (").append(reason).append("), not named one by");
        line.append(" one past the first ").append(MAX_GROUPS).append(" objects with warnings;");
        line.append(" the next full sync counts them");
      }
      for (int i = 0; i < examples.size(); i++) {
        line.append(i == 0 ? ", e.g. " : "; ").append(examples.get(i));
      }
      if (count > examples.size()) {
        line.append("; …");
      }
      return line.toString();
    }
  }

  public interface Sink {
    void changed(Group group);
  }

  private record Key(String object, String reason) {}

  /** The groups named one by one, at most {@link #MAX_GROUPS}. */
  private final LinkedHashMap<Key, Group> known = new LinkedHashMap<>();

  /** Per reason, the objects past the bound as the last full sync summed them up. */
  private Map<String, Group> beyond = Map.of();

  /** The reasons whose summary was told since the last full sync. */
  private final Set<String> toldBeyond = new HashSet<>();

  /** The warnings of a full plan: they replace every group; new or changed ones are told. */
  public synchronized void full(List<String> warnings, Sink sink) {
    var groups = group(warnings);
    var before = new LinkedHashMap<>(known);
    known.clear();
    // The groups remembered already keep their places, so the bound never makes one come back.
    for (var group : groups) {
      var key = new Key(group.object(), group.reason());
      var old = before.get(key);
      if (old != null) {
        if (!group.equals(old)) {
          sink.changed(group);
        }
        known.put(key, group);
      }
    }
    var counted = new TreeMap<String, Group>();
    for (var group : groups) {
      var key = new Key(group.object(), group.reason());
      if (known.containsKey(key)) {
        continue;
      }
      if (known.size() < MAX_GROUPS) {
        sink.changed(group);
        known.put(key, group);
      } else {
        counted.merge(group.reason(), summary(group, 1), PlanWarnings::sum);
      }
    }
    counted.forEach(
        (reason, summary) -> {
          var old = beyond.get(reason);
          if (old == null || old.objects() != summary.objects()) {
            sink.changed(summary);
          }
        });
    beyond = counted;
    toldBeyond.clear();
    toldBeyond.addAll(counted.keySet());
  }

  /** The warnings of some objects: their groups are updated; new or changed ones are told. */
  public synchronized void partial(List<String> warnings, Sink sink) {
    for (var group : group(warnings)) {
      var key = new Key(group.object(), group.reason());
      if (known.containsKey(key) || known.size() < MAX_GROUPS) {
        if (!group.equals(known.put(key, group))) {
          sink.changed(group);
        }
      } else if (toldBeyond.add(group.reason())) {
        sink.changed(summary(group, 0));
      }
    }
  }

  /**
   * The warnings per reason (sorted), what the metric shows: those of the remembered groups, and
   * those past the bound as the last full sync counted them.
   */
  public synchronized Map<String, Integer> countsByReason() {
    var counts = new TreeMap<String, Integer>();
    for (var reason : REASONS) {
      counts.put(reason[1], 0);
    }
    counts.put(OTHER, 0);
    known.values().forEach(group -> counts.merge(group.reason(), group.count(), Integer::sum));
    beyond.values().forEach(group -> counts.merge(group.reason(), group.count(), Integer::sum));
    return counts;
  }

  public synchronized int size() {
    return known.size();
  }

  /** A summary of one object's group past the bound: its object is one of the examples. */
  private static Group summary(Group group, int objects) {
    return new Group(MORE_OBJECTS, group.reason(), group.count(), List.of(group.object()), objects);
  }

  private static Group sum(Group a, Group b) {
    var examples = new ArrayList<>(a.examples());
    if (examples.size() < EXAMPLES) {
      examples.addAll(b.examples());
    }
    return new Group(
        MORE_OBJECTS,
        a.reason(),
        a.count() + b.count(),
        examples.subList(0, Math.min(EXAMPLES, examples.size())),
        a.objects() + b.objects());
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
            result.add(new Group(key.object(), key.reason(), counts.get(key), examples, 1)));
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
