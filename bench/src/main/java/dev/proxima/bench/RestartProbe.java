package dev.proxima.bench;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.PlanStore;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.SavedRuleset;
import dev.proxima.proxy.track.ProxyCacheTrim;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs in a JVM of its own, started by {@link RestartDigestBenchmark} with the DaemonSet's JVM
 * flags, so every measured step runs cold code as a restarted proxy's first sync does. It builds
 * the synthetic cluster in the form the proxy holds it (trimmed as decoded) and times, in this
 * order, so the candidate gets the coldest code:
 *
 * <ol>
 *   <li>reading the saved per-Service digests ({@code write} mode wrote them, from the same cluster
 *       with {@code changed} Services' slices different, as if they changed while the proxy was
 *       down);
 *   <li>digesting every Service's inputs ({@link PlanInputDigest}): each object, then the joins;
 *   <li>looking every Service up in the saved map, and planning the misses as a partial sync would;
 *   <li>the baseline: planning every Service as a full sync does ({@code NodePlanner.planClaims}
 *       and {@code PlanStore.replaceAll});
 *   <li>rendering every planned port and its saved-record digest, what a restart does before
 *       comparing with the saved file today.
 * </ol>
 *
 * Prints one line, {@code RESULT key=value ...}, milliseconds unless the key says otherwise.
 */
public final class RestartProbe {
  private RestartProbe() {}

  /** {@code write|measure SERVICES ENDPOINTS FILE CHANGED}. */
  public static void main(String[] args) throws IOException {
    var mode = args[0];
    var cluster =
        new SyntheticCluster(
            Integer.parseInt(args[1]), Integer.parseInt(args[2]), "PreferSameZone");
    var file = Path.of(args[3]);
    int changed = Integer.parseInt(args[4]);
    var held = Held.of(cluster);
    if (mode.equals("write")) {
      write(held, cluster, file, changed);
    } else {
      System.out.println("RESULT " + measure(held, file, changed));
    }
  }

  /** The cluster as the proxy's informers hold it, slices indexed by their Service. */
  record Held(
      Node node,
      List<Service> services,
      Map<ObjectKey, List<EndpointSlice>> slices,
      String settings) {
    static Held of(SyntheticCluster cluster) {
      var services = cluster.services();
      services.forEach(ProxyCacheTrim::service);
      var slices = new LinkedHashMap<ObjectKey, List<EndpointSlice>>();
      for (var slice : cluster.hintedSlices()) {
        ProxyCacheTrim.slice(slice);
        slices
            .computeIfAbsent(
                new ObjectKey(
                    slice.getMetadata().getNamespace(),
                    slice.getMetadata().getLabels().get(dev.proxima.model.Labels.SERVICE_NAME)),
                k -> new ArrayList<>())
            .add(slice);
      }
      var node = cluster.nodes().get(0);
      var addresses =
          node.getStatus().getAddresses().stream().map(address -> address.getAddress()).toList();
      var config = RuleSettings.defaults();
      var settings =
          new RulesetAssembler(
                  config.forFamily(
                      IpFamily.IPV4, config.nodePortAddresses(IpFamily.IPV4, addresses), List.of()))
              .settingsDigest();
      return new Held(node, services, slices, settings);
    }

    List<EndpointSlice> slicesOf(Service service) {
      return slices.getOrDefault(
          new ObjectKey(service.getMetadata().getNamespace(), service.getMetadata().getName()),
          List.of());
    }
  }

  /** Which Services changed while the proxy was down: spread over the cluster. */
  static boolean changedWhileDown(int index, int services, int changed) {
    return changed > 0
        && index % Math.max(1, services / changed) == 0
        && index / Math.max(1, services / changed) < changed;
  }

  private static byte[] basis(PlanInputDigest digests, Held held) {
    return digests.basis(
        IpFamily.IPV4, SyntheticCluster.PROXY_NODE, held.node(), null, held.settings(), "probe");
  }

  private static void write(Held held, SyntheticCluster cluster, Path file, int changed)
      throws IOException {
    var digests = new PlanInputDigest();
    var basis = basis(digests, held);
    var hex = HexFormat.of();
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write(HEADER + hex.formatHex(basis) + "\n");
      for (int i = 0; i < held.services().size(); i++) {
        var service = held.services().get(i);
        var slices = held.slicesOf(service);
        if (changedWhileDown(i, held.services().size(), changed)) {
          // Before the change: one endpoint elsewhere.
          var before = PartialSyncProbe.changedSlice(cluster, i, "10.195.0.1");
          ProxyCacheTrim.slice(before);
          slices = List.of(before);
        }
        var line = new StringBuilder();
        line.append(service.getMetadata().getNamespace())
            .append('\t')
            .append(service.getMetadata().getName())
            .append('\t')
            .append(hex.formatHex(digests.service(service)));
        for (var slice : slices) {
          line.append('\t')
              .append(slice.getMetadata().getName())
              .append(' ')
              .append(hex.formatHex(digests.slice(slice)));
        }
        out.write(line.append('\n').toString());
      }
    }
  }

  private static final String HEADER = "proxima-plan-digests 1\tbasis\t";

  private static String measure(Held held, Path file, int changed) throws IOException {
    var figures = new LinkedHashMap<String, Object>();
    figures.put("fileBytes", Files.size(file));

    long t = System.nanoTime();
    var saved = readSaved(file);
    figures.put("readMs", since(t));

    // Every object's digest, as the informers would take them while decoding.
    t = System.nanoTime();
    var digests = new PlanInputDigest();
    var basis = basis(digests, held);
    var serviceDigests = new byte[held.services().size()][];
    var sliceDigests = new ArrayList<List<PlanInputDigest.NamedDigest>>(held.services().size());
    int objects = 0;
    for (int i = 0; i < serviceDigests.length; i++) {
      var service = held.services().get(i);
      serviceDigests[i] = digests.service(service);
      var named = new ArrayList<PlanInputDigest.NamedDigest>();
      for (var slice : held.slicesOf(service)) {
        named.add(
            new PlanInputDigest.NamedDigest(
                slice.getMetadata().getNamespace(),
                slice.getMetadata().getName(),
                digests.slice(slice)));
        objects++;
      }
      sliceDigests.add(named);
      objects++;
    }
    double objectMs = since(t);
    figures.put("objectDigestMs", objectMs);
    figures.put("perObjectUs", objectMs * 1000 / objects);

    // A Service matches when the basis and each of its objects' digests match the saved ones.
    t = System.nanoTime();
    var misses = new ArrayList<Service>();
    boolean basisHolds = Arrays.equals(saved.basis(), basis);
    for (int i = 0; i < serviceDigests.length; i++) {
      var service = held.services().get(i);
      var key = service.getMetadata().getNamespace() + "/" + service.getMetadata().getName();
      if (!basisHolds
          || !matches(saved.digests().get(key), serviceDigests[i], sliceDigests.get(i))) {
        misses.add(service);
      }
    }
    figures.put("lookupMs", since(t));
    if (misses.size() != changed) {
      throw new IllegalStateException(
          "expected " + changed + " Services to miss, " + misses.size() + " did");
    }
    figures.put("misses", misses.size());

    t = System.nanoTime();
    int missPorts = 0;
    for (var service : misses) {
      missPorts +=
          NodePlanner.planServiceClaims(
                  IpFamily.IPV4,
                  SyntheticCluster.PROXY_NODE,
                  held.node(),
                  null,
                  service,
                  held.slicesOf(service))
              .ports()
              .size();
    }
    figures.put("missPlanMs", since(t));

    // For comparison: one digest per Service, joined from its objects', as a design that saves a
    // single digest per Service would compute for every Service after the sync.
    t = System.nanoTime();
    int joined = 0;
    for (int i = 0; i < serviceDigests.length; i++) {
      joined += digests.combine(basis, serviceDigests[i], sliceDigests.get(i)).length;
    }
    figures.put("joinMs", since(t));

    t = System.nanoTime();
    var allSlices = new ArrayList<EndpointSlice>();
    held.slices().values().forEach(allSlices::addAll);
    var plan =
        NodePlanner.planClaims(
            IpFamily.IPV4,
            SyntheticCluster.PROXY_NODE,
            held.node(),
            null,
            held.services(),
            allSlices);
    var store = new PlanStore(IpFamily.IPV4, SyntheticCluster.PROXY_NODE);
    var ports = store.replaceAll(plan.ports(), plan.nodeZone());
    figures.put("planMs", since(t));
    if (ports.size() != held.services().size()
        || missPorts != misses.size()
        || joined != 32 * serviceDigests.length) {
      throw new IllegalStateException(
          "planned " + ports.size() + " ports for " + held.services().size() + " Services");
    }

    t = System.nanoTime();
    int rendered = 0;
    for (var port : ports) {
      rendered += SavedRuleset.digest(NftPlanRenderer.rules(port)).length();
    }
    figures.put("renderMs", since(t));
    figures.put("renderedDigestChars", rendered);

    var text = new StringBuilder();
    figures.forEach(
        (key, value) -> {
          if (!text.isEmpty()) {
            text.append(' ');
          }
          text.append(key)
              .append('=')
              .append(value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value);
        });
    return text.toString();
  }

  /** Whether a saved Service's digests are these: its own, and its slices' by name. */
  private static boolean matches(
      SavedService saved, byte[] service, List<PlanInputDigest.NamedDigest> slices) {
    if (saved == null
        || !Arrays.equals(saved.service(), service)
        || saved.slices().size() != slices.size()) {
      return false;
    }
    for (var slice : slices) {
      if (!Arrays.equals(saved.slices().get(slice.name()), slice.digest())) {
        return false;
      }
    }
    return true;
  }

  record SavedService(byte[] service, Map<String, byte[]> slices) {}

  record Saved(byte[] basis, Map<String, SavedService> digests) {}

  /**
   * The saved digests: a header with the basis digest, then one Service a line: namespace, name,
   * its digest, then each slice's name and digest.
   */
  static Saved readSaved(Path file) throws IOException {
    var hex = HexFormat.of();
    var digests = new HashMap<String, SavedService>();
    byte[] basis = null;
    try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      var header = in.readLine();
      if (header != null && header.startsWith(HEADER)) {
        basis = hex.parseHex(header, HEADER.length(), header.length());
      }
      String line;
      while ((line = in.readLine()) != null) {
        var fields = line.split("\t");
        if (fields.length < 3) {
          continue;
        }
        var slices = new HashMap<String, byte[]>(2);
        for (int f = 3; f < fields.length; f++) {
          int space = fields[f].indexOf(' ');
          slices.put(
              fields[f].substring(0, space),
              hex.parseHex(fields[f], space + 1, fields[f].length()));
        }
        digests.put(fields[0] + "/" + fields[1], new SavedService(hex.parseHex(fields[2]), slices));
      }
    }
    return new Saved(basis, digests);
  }

  private static double since(long started) {
    return (System.nanoTime() - started) / 1e6;
  }
}
