package dev.proxima.proxy.render.nft;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePortName;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The text a proxy saves of what it loaded into one family's table, so a restarted proxy can take
 * up where it stopped without reading the table back: per Service port, the digest of its input and
 * the chains, sets and elements it added, then the Service CIDRs, and a {@code commit} line naming
 * the generation the kernel's marker holds after that load. Partial syncs append records (a port
 * again, a port gone, new CIDRs) ending in their own {@code commit}; a record without its {@code
 * commit} (the proxy stopped while writing) is ignored. Beside the ports, the file says what they
 * were planned from: a digest of everything besides the Services that the plan reads (the basis),
 * and each Service key's object revisions ({@code ObjectVersions}), so a restart whose objects are
 * all unchanged can trust the table without planning.
 *
 * <pre>
 * proxima-nft-state 3
 * settings HEX
 * basis HEX
 * version NS\tNAME\tSTAMP
 * unversioned NS\tNAME
 * port NS\tNAME\tPORT\tPROTOCOL\tDIGEST
 * c CHAIN\t[TYPE HOOK PRIORITY]
 * r CHAIN\tEXPRESSION[\tCOMMENT]
 * m CHAIN\tEXPRESSION[\tCOMMENT]          (a rule that looks up a map)
 * s SET\tset|map\tDECLARATION\t[COMMENT]
 * e SET\tKEY[\t[VALUE][\tCOMMENT]]
 * n counted\t
 * gone NS\tNAME\tPORT\tPROTOCOL
 * cidrs\tCIDR\tCIDR...
 * commit EPOCH GENERATION
 * </pre>
 *
 * Each line holds one object's fields ({@link NftChain}, {@link NftRule}, {@link NftSet}, {@link
 * NftElement}), not nft text: the renderer never writes a line break or a tab inside a field, and
 * comments are sanitised, so the format needs no escaping. A file of another version (version 1
 * held nft statements, version 2 no object revisions) is {@link Corrupt}, and the proxy loads
 * everything. Pure: the runtime reads and writes the file.
 */
public final class SavedRuleset {
  public static final String HEADER = "proxima-nft-state 3";

  /**
   * What a parse found: the ports with their records (fragment and input digest), the Service
   * CIDRs, what the ports were planned from, and the marker of the last complete commit.
   *
   * @param basis the digest of what besides the Services the plan read; null when none was saved
   * @param versions each Service key's object revisions as planned ({@code ObjectVersions})
   */
  public record Contents(
      String settings,
      SortedMap<ServicePortName, Port> ports,
      List<String> serviceCidrs,
      String basis,
      Map<ObjectKey, String> versions,
      Marker marker) {
    /** How many Service ports the file describes. */
    public int portCount() {
      return ports.size();
    }
  }

  /**
   * What a file says of where its table came from, without the ports: enough for a restart to tell
   * whether its objects are still the ones the table was planned from, read while the informers
   * list. Fields as in {@link Contents}.
   */
  public record Provenance(
      String settings,
      String basis,
      Map<ObjectKey, String> versions,
      List<String> serviceCidrs,
      Marker marker) {}

  /**
   * One Service port's record as read back: the digest of its input and its statements, kept in the
   * order written and in arrays instead of the maps of a {@link ServiceFragment}. A restarted proxy
   * holds one per Service port until its first sync adopts it, and at 44,000 Services the maps, and
   * a copy of every chain and set name per port, cost about 2 KiB a port (96 MiB of heap on top of
   * a cold start's); the names and the shared chains' lines are read once for the whole file.
   */
  public static final class Port {
    /** The input digest's 32 hex digits, as two numbers: a third of the string's heap. */
    private final long digestHigh;

    private final long digestLow;

    /** Each statement's tag ({@code c r m s e}), in the order written. */
    private final byte[] tags;

    /** Each statement's name and text, two entries per statement. */
    private final String[] parts;

    private final boolean counted;

    private Port(long digestHigh, long digestLow, byte[] tags, String[] parts, boolean counted) {
      this.digestHigh = digestHigh;
      this.digestLow = digestLow;
      this.tags = tags;
      this.parts = parts;
      this.counted = counted;
    }

    /** The digest of the input that rendered this port ({@link SavedRuleset#digest}). */
    String digest() {
      return HexFormat.of().toHexDigits(digestHigh) + HexFormat.of().toHexDigits(digestLow);
    }

    /**
     * True when {@code digest} ({@link SavedRuleset#digest}) is the one this port was saved with.
     */
    boolean hasDigest(String digest) {
      return digest.length() == 32
          && HexFormat.fromHexDigitsToLong(digest, 0, 16) == digestHigh
          && HexFormat.fromHexDigitsToLong(digest, 16, 32) == digestLow;
    }

    /** The port's part of the table, as the {@link ServiceFragment} the renderer made. */
    ServiceFragment fragment() {
      var chains = new LinkedHashMap<String, NftChain>();
      var rules = new LinkedHashMap<String, List<NftRule>>();
      var sets = new LinkedHashMap<String, NftSet>();
      var elements = new LinkedHashMap<String, List<NftElement>>();
      // The port's elements share one comment string, as the renderer's do.
      String comment = null;
      for (int i = 0; i < tags.length; i++) {
        var name = parts[2 * i];
        var fields = parts[2 * i + 1].split("\t", -1);
        switch (tags[i]) {
          case 'c' -> {
            chains.put(name, chain(name, fields[0]));
            rules.putIfAbsent(name, new ArrayList<>());
          }
          case 'r', 'm' ->
              rules
                  .computeIfAbsent(name, n -> new ArrayList<>())
                  .add(new NftRule(name, fields[0], field(fields, 1), tags[i] == 'm'));
          case 's' ->
              sets.put(
                  name, new NftSet(name, NftSet.Kind.of(fields[0]), fields[1], field(fields, 2)));
          default -> {
            var read = field(fields, 2);
            if (read != null && !read.equals(comment)) {
              comment = read;
            }
            elements
                .computeIfAbsent(name, n -> new ArrayList<>())
                .add(new NftElement(fields[0], field(fields, 1), read == null ? null : comment));
          }
        }
      }
      return new ServiceFragment(chains, rules, sets, elements, counted, List.of());
    }

    /** Field {@code i}, or null when it is missing or empty. */
    private static String field(String[] fields, int i) {
      return i < fields.length && !fields[i].isEmpty() ? fields[i] : null;
    }

    private static NftChain chain(String name, String hook) {
      if (hook.isEmpty()) {
        return NftChain.regular(name);
      }
      var words = hook.split(" ");
      return NftChain.base(name, words[0], words[1], Integer.parseInt(words[2]));
    }

    /** The rules and elements the port loads: about the lines taking it out costs. */
    int ruleAndElementLines() {
      int lines = 0;
      for (byte tag : tags) {
        if (tag == 'r' || tag == 'm' || tag == 'e') {
          lines++;
        }
      }
      return lines;
    }
  }

  /**
   * A port's statements as a parse reads them, then frozen into a {@link Port}; one for the whole
   * file, reused port after port. Names, and the lines of chains and sets (mostly the {@code lb-N}
   * chains every port with N endpoints repeats), are taken from {@code shared}: one copy each.
   */
  private static final class PortReader {
    final Map<String, String> shared = new HashMap<>();
    byte[] tags = new byte[16];
    String[] parts = new String[32];
    int size;
    long digestHigh;
    long digestLow;
    boolean counted;

    void start(String portDigest) throws Corrupt {
      size = 0;
      try {
        if (portDigest.length() != 32) {
          throw new NumberFormatException("not 32 hex digits");
        }
        digestHigh = HexFormat.fromHexDigitsToLong(portDigest, 0, 16);
        digestLow = HexFormat.fromHexDigitsToLong(portDigest, 16, 32);
      } catch (IllegalArgumentException e) {
        throw new Corrupt("bad digest: " + portDigest);
      }
      counted = false;
    }

    void add(char tag, String name, String text) {
      if (tag == 'n') {
        counted = true;
        return;
      }
      if (size == tags.length) {
        tags = Arrays.copyOf(tags, 2 * size);
        parts = Arrays.copyOf(parts, 4 * size);
      }
      tags[size] = (byte) tag;
      parts[2 * size] = shared(name);
      parts[2 * size + 1] = tag == 'e' ? text : shared(text);
      size++;
    }

    String shared(String text) {
      var first = shared.putIfAbsent(text, text);
      return first == null ? text : first;
    }

    Port build() {
      return new Port(
          digestHigh,
          digestLow,
          Arrays.copyOf(tags, size),
          Arrays.copyOf(parts, 2 * size),
          counted);
    }
  }

  /**
   * The generation a table carries: a random epoch chosen when a proxy rewrites the saved file
   * whole, and a count of loads since.
   */
  public record Marker(long epoch, long generation) {
    public Marker next() {
      return new Marker(epoch, generation + 1);
    }

    /**
     * The comment of the marker set's element in the kernel, spelled with dashes: the one
     * serializer turns every character of a comment outside {@code [A-Za-z0-9._/:-]} into {@code
     * _}. Reading accepts spaces too, as the first set markers were written.
     */
    public String comment() {
      return "epoch-" + epoch + "-generation-" + generation;
    }
  }

  /** The file cannot be read as a saved ruleset; the proxy loads everything instead. */
  public static final class Corrupt extends Exception {
    private static final long serialVersionUID = 1L;

    Corrupt(String message) {
      super(message);
    }
  }

  private SavedRuleset() {}

  /** The first lines of a file written whole: header and settings. */
  public static String header(String settingsDigest) {
    return HEADER + "\nsettings " + settingsDigest + "\n";
  }

  /** A port's record: its name, the digest of its input, and what it added. */
  static String port(ServicePortName port, String digest, ServiceFragment fragment) {
    var out = new StringBuilder(256);
    out.append("port ").append(name(port)).append('\t').append(digest).append('\n');
    fragment.chains().forEach((name, chain) -> chain(out, chain));
    fragment.rules().forEach((chain, rules) -> rules.forEach(rule -> rule(out, rule)));
    fragment.sets().forEach((name, set) -> set(out, set));
    fragment
        .elements()
        .forEach((set, elements) -> elements.forEach(element -> element(out, set, element)));
    if (fragment.counted()) {
      out.append("n counted\t\n");
    }
    return out.toString();
  }

  private static void chain(StringBuilder out, NftChain chain) {
    out.append("c ").append(chain.name()).append('\t');
    var hook = chain.hook();
    if (hook != null) {
      out.append(hook.type()).append(' ').append(hook.hook()).append(' ').append(hook.priority());
    }
    out.append('\n');
  }

  private static void rule(StringBuilder out, NftRule rule) {
    out.append(rule.mapLookup() ? "m " : "r ").append(rule.chain()).append('\t');
    out.append(rule.expression());
    if (rule.comment() != null) {
      out.append('\t').append(rule.comment());
    }
    out.append('\n');
  }

  private static void set(StringBuilder out, NftSet set) {
    out.append("s ").append(set.name()).append('\t').append(set.kind().keyword()).append('\t');
    out.append(set.declaration()).append('\t');
    if (set.comment() != null) {
      out.append(set.comment());
    }
    out.append('\n');
  }

  private static void element(StringBuilder out, String set, NftElement element) {
    out.append("e ").append(set).append('\t');
    element.appendKey(out);
    if (!element.isKeyAlone()) {
      out.append('\t');
      element.appendValue(out);
      if (element.comment() != null) {
        out.append('\t').append(element.comment());
      }
    }
    out.append('\n');
  }

  static String gone(ServicePortName port) {
    return "gone " + name(port) + "\n";
  }

  public static String cidrs(List<String> cidrs) {
    var out = new StringBuilder("cidrs");
    cidrs.forEach(cidr -> out.append('\t').append(cidr));
    return out.append('\n').toString();
  }

  /** A whole file holding {@code contents}, for rewriting a file whose appended records grew. */
  public static void write(Contents contents, StringBuilder out) {
    out.append(header(contents.settings()));
    contents
        .ports()
        .forEach((name, port) -> out.append(port(name, port.digest(), port.fragment())));
    out.append(cidrs(contents.serviceCidrs()));
    provenance(contents.basis(), contents.versions(), out);
    out.append(commit(contents.marker()));
  }

  /** The lines of a whole file that say what its ports were planned from; no basis when null. */
  public static void provenance(String basis, Map<ObjectKey, String> versions, StringBuilder out) {
    if (basis != null) {
      out.append(basis(basis));
    }
    versions.forEach((key, stamp) -> out.append(version(key, stamp)));
  }

  /** The digest of what besides the Services the following ports were planned from. */
  public static String basis(String digest) {
    return "basis " + digest + "\n";
  }

  /**
   * A Service key's object revisions as planned ({@code ObjectVersions}); a null stamp (nothing
   * left of it, or not stampable) says the key has none.
   */
  public static String version(ObjectKey key, String stamp) {
    return stamp == null
        ? "unversioned " + key.namespace() + "\t" + key.name() + "\n"
        : "version " + key.namespace() + "\t" + key.name() + "\t" + stamp + "\n";
  }

  /**
   * Reads the marker from a listing of the marker set ({@code nft list set}): the comment of its
   * element. Empty when there is none, or more than one (not a set this proxy wrote).
   */
  public static java.util.Optional<Marker> marker(String listing) {
    var match = MARKER_COMMENT.matcher(listing);
    if (!match.find()) {
      return java.util.Optional.empty();
    }
    Marker found;
    try {
      found = new Marker(Long.parseLong(match.group(1)), Long.parseLong(match.group(2)));
    } catch (NumberFormatException e) {
      return java.util.Optional.empty();
    }
    return match.find() ? java.util.Optional.empty() : java.util.Optional.of(found);
  }

  private static final java.util.regex.Pattern MARKER_COMMENT =
      java.util.regex.Pattern.compile("comment \"epoch[ -](\\d+)[ -]generation[ -](\\d+)\"");

  public static String commit(Marker marker) {
    return "commit " + marker.epoch() + " " + marker.generation() + "\n";
  }

  private static String name(ServicePortName port) {
    return port.service().namespace()
        + "\t"
        + port.service().name()
        + "\t"
        + port.port()
        + "\t"
        + port.protocol().name();
  }

  private static ServicePortName parseName(String[] fields, int from, PortReader reader)
      throws Corrupt {
    try {
      // Namespaces and port names repeat from Service to Service: one copy each.
      return new ServicePortName(
          new ObjectKey(reader.shared(fields[from]), fields[from + 1]),
          reader.shared(fields[from + 2]),
          Protocol.valueOf(fields[from + 3]));
    } catch (RuntimeException e) {
      throw new Corrupt("bad port name: " + String.join(" ", fields));
    }
  }

  /**
   * Reads a saved file line by line; what follows the last {@code commit} is left out.
   *
   * @throws Corrupt when a line is not of the format, or no commit was ever written
   */
  public static Contents parse(Iterator<String> lines) throws Corrupt {
    var settings = settingsOf(lines);
    // Committed state, and the records since the last commit. A port's record is frozen into its
    // compact form as soon as the next line shows it complete.
    var ports = new TreeMap<ServicePortName, Port>();
    // In name order, so the records of a file written whole become the committed map itself.
    var pending = new TreeMap<ServicePortName, Port>();
    var provenance = new ProvenanceReader();
    var reader = new PortReader();
    ServicePortName current = null;
    while (lines.hasNext()) {
      var line = lines.next();
      if (isStatement(line)) {
        if (current == null) {
          throw new Corrupt("a statement outside a port: " + line);
        }
        int tab = line.indexOf('\t');
        if (tab < 0) {
          throw new Corrupt("bad statement line: " + line);
        }
        var fields = line.substring(tab + 1);
        if (!wellFormed(line.charAt(0), fields)) {
          throw new Corrupt("bad statement line: " + line);
        }
        reader.add(line.charAt(0), line.substring(2, tab), fields);
        continue;
      }
      if (current != null) {
        pending.put(current, reader.build());
        current = null;
      }
      if (line.startsWith("port ")) {
        var fields = line.substring(5).split("\t", -1);
        if (fields.length != 5) {
          throw new Corrupt("bad port line: " + line);
        }
        current = parseName(fields, 0, reader);
        reader.start(fields[4]);
      } else if (line.startsWith("gone ")) {
        pending.put(parseName(line.substring(5).split("\t", -1), 0, reader), null);
      } else if (line.startsWith("commit ")) {
        provenance.commit(line);
        if (ports.isEmpty() && !pending.containsValue(null)) {
          ports = pending;
          pending = new TreeMap<>();
        } else {
          for (var entry : pending.entrySet()) {
            if (entry.getValue() == null) {
              ports.remove(entry.getKey());
            } else {
              ports.put(entry.getKey(), entry.getValue());
            }
          }
          pending.clear();
        }
      } else if (!provenance.read(line)) {
        throw new Corrupt("unknown line: " + line);
      }
    }
    var found = provenance.found(settings);
    return new Contents(
        settings, ports, found.serviceCidrs(), found.basis(), found.versions(), found.marker());
  }

  /**
   * Reads only what a saved file says of where its table came from, passing over the ports'
   * records: a fraction of {@link #parse}'s work and memory, so a restart can read it while the
   * informers list.
   *
   * @throws Corrupt when a line it reads is not of the format, or no commit was ever written
   */
  public static Provenance provenance(Iterator<String> lines) throws Corrupt {
    var settings = settingsOf(lines);
    var provenance = new ProvenanceReader();
    while (lines.hasNext()) {
      var line = lines.next();
      if (isStatement(line) || line.startsWith("port ") || line.startsWith("gone ")) {
        continue;
      }
      if (line.startsWith("commit ")) {
        provenance.commit(line);
      } else if (!provenance.read(line)) {
        throw new Corrupt("unknown line: " + line);
      }
    }
    return provenance.found(settings);
  }

  /** Reads the header and the settings line; the settings digest. */
  private static String settingsOf(Iterator<String> lines) throws Corrupt {
    if (!lines.hasNext() || !lines.next().equals(HEADER)) {
      throw new Corrupt("not a saved ruleset of this format (first line is not " + HEADER + ")");
    }
    if (!lines.hasNext()) {
      throw new Corrupt("no settings line");
    }
    var settingsLine = lines.next();
    if (!settingsLine.startsWith("settings ")) {
      throw new Corrupt("no settings line");
    }
    return settingsLine.substring(9);
  }

  private static boolean isStatement(String line) {
    return line.length() > 2 && line.charAt(1) == ' ' && "crmsen".indexOf(line.charAt(0)) >= 0;
  }

  /**
   * The lines besides the ports' records: the Service CIDRs, the basis, the object revisions and
   * the commits that make them count; what follows the last commit is left out.
   */
  private static final class ProvenanceReader {
    private final Map<ObjectKey, String> versions = new HashMap<>();

    /** The records since the last commit: a null stamp removes the key's. */
    private final Map<ObjectKey, String> pendingVersions = new HashMap<>();

    private final Map<String, String> namespaces = new HashMap<>();
    private List<String> cidrs = List.of();
    private List<String> pendingCidrs;
    private String basis;
    private String pendingBasis;
    private Marker marker;

    /** Takes one line it knows; false for any other. */
    boolean read(String line) throws Corrupt {
      if (line.equals("cidrs") || line.startsWith("cidrs\t")) {
        pendingCidrs =
            line.equals("cidrs") ? List.of() : List.of(line.substring(6).split("\t", -1));
      } else if (line.startsWith("basis ")) {
        pendingBasis = line.substring(6);
        if (pendingBasis.isEmpty()) {
          throw new Corrupt("bad basis line: " + line);
        }
      } else if (line.startsWith("version ")) {
        var fields = line.substring(8).split("\t", -1);
        if (fields.length != 3 || fields[2].isEmpty()) {
          throw new Corrupt("bad version line: " + line);
        }
        pendingVersions.put(key(fields, line), fields[2]);
      } else if (line.startsWith("unversioned ")) {
        var fields = line.substring(12).split("\t", -1);
        if (fields.length != 2) {
          throw new Corrupt("bad version line: " + line);
        }
        pendingVersions.put(key(fields, line), null);
      } else {
        return false;
      }
      return true;
    }

    private ObjectKey key(String[] fields, String line) throws Corrupt {
      try {
        return new ObjectKey(namespaces.computeIfAbsent(fields[0], n -> n), fields[1]);
      } catch (RuntimeException e) {
        throw new Corrupt("bad version line: " + line);
      }
    }

    void commit(String line) throws Corrupt {
      var fields = line.split(" ");
      try {
        marker = new Marker(Long.parseLong(fields[1]), Long.parseLong(fields[2]));
      } catch (RuntimeException e) {
        throw new Corrupt("bad commit line: " + line);
      }
      pendingVersions.forEach(
          (key, stamp) -> {
            if (stamp == null) {
              versions.remove(key);
            } else {
              versions.put(key, stamp);
            }
          });
      pendingVersions.clear();
      if (pendingCidrs != null) {
        cidrs = pendingCidrs;
      }
      pendingCidrs = null;
      if (pendingBasis != null) {
        basis = pendingBasis;
      }
      pendingBasis = null;
    }

    Provenance found(String settings) throws Corrupt {
      if (marker == null) {
        throw new Corrupt("no commit line: the proxy stopped before its first load finished");
      }
      return new Provenance(settings, basis, versions, cidrs, marker);
    }
  }

  /** Whether a statement's fields are what {@link Port#fragment} reads from them. */
  private static boolean wellFormed(char tag, String fields) {
    return switch (tag) {
      case 's' -> {
        var parts = fields.split("\t", -1);
        yield parts.length == 3 && (parts[0].equals("set") || parts[0].equals("map"));
      }
      case 'c' -> fields.isEmpty() || fields.matches("[a-z]+ [a-z]+ -?\\d{1,9}");
      case 'e', 'r', 'm' -> !fields.isEmpty() && fields.charAt(0) != '\t';
      default -> true;
    };
  }

  /**
   * A digest of {@code value} that is the same for equal values in every JVM: records by their
   * components, lists in order, sets and maps sorted. Unlike {@code hashCode} or {@code toString}
   * of a set, it does not depend on the JVM's hash seed, so a restarted proxy recognises an
   * unchanged Service port without rendering it.
   *
   * <p>The text it hashes is compact, because a restart digests every Service port (about 250 bytes
   * each instead of 830 with the components' names), and unambiguous: every text value is prefixed
   * by its length, so no name holding a comma or a bracket reads as two values.
   */
  public static String digest(Object value) {
    var text = new StringBuilder(256);
    canonical(value, text);
    var hash = sha256().digest(text.toString().getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(hash, 0, 16);
  }

  /** Looked up once: finding the provider again costs about as much as hashing a port. */
  private static final MessageDigest SHA_256;

  static {
    try {
      SHA_256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** A fresh SHA-256: a copy of the one looked up, so threads never share one. */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("this JVM's SHA-256 cannot be copied", e);
    }
  }

  private static void canonical(Object value, StringBuilder out) {
    if (value == null) {
      out.append('~');
    } else if (value instanceof Record record) {
      out.append('(');
      for (var component : RECORD_COMPONENTS.get(record.getClass())) {
        canonical(read(component, record), out);
        out.append(',');
      }
      out.append(')');
    } else if (value instanceof Set<?> set) {
      if (set.isEmpty()) {
        out.append("{}");
      } else {
        sorted(set, out);
      }
    } else if (value instanceof Map<?, ?> map) {
      sorted(
          map.entrySet().stream().map(e -> key(e.getKey()) + "=" + key(e.getValue())).toList(),
          out);
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      for (var item : list) {
        canonical(item, out);
        out.append(',');
      }
      out.append(']');
    } else if (value instanceof Boolean flag) {
      out.append(flag ? 't' : 'f');
    } else if (value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else {
      var text = value.toString();
      out.append(text.length()).append('\'').append(text);
    }
  }

  /**
   * Each record class's component accessors, looked up once: asking the class for its components
   * allocates and parses them on every call, which made the digest of each Service port cost tens
   * of microseconds.
   */
  private static final ClassValue<List<MethodHandle>> RECORD_COMPONENTS =
      new ClassValue<>() {
        @Override
        protected List<MethodHandle> computeValue(Class<?> type) {
          var accessors = new ArrayList<MethodHandle>();
          for (var component : type.getRecordComponents()) {
            try {
              var accessor = component.getAccessor();
              accessor.setAccessible(true);
              accessors.add(
                  MethodHandles.lookup()
                      .unreflect(accessor)
                      .asType(MethodType.methodType(Object.class, Object.class)));
            } catch (IllegalAccessException | RuntimeException e) {
              throw new IllegalStateException("cannot read " + component, e);
            }
          }
          return List.copyOf(accessors);
        }
      };

  private static Object read(MethodHandle accessor, Record record) {
    try {
      return accessor.invoke(record);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      // An accessor declares no checked exception; this is for the compiler.
      throw new IllegalStateException("cannot read a component of " + record.getClass(), e);
    }
  }

  private static String key(Object value) {
    var out = new StringBuilder();
    canonical(value, out);
    return out.toString();
  }

  private static void sorted(Collection<?> items, StringBuilder out) {
    out.append('{');
    items.stream().map(SavedRuleset::key).sorted().forEach(item -> out.append(item).append(','));
    out.append('}');
  }
}
