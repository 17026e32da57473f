package dev.proxima.controller.hints.auto;

import dev.proxima.controller.testing.Fixtures;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Terse builders for the Auto tests, on top of the controller's shared {@link Fixtures}. */
final class AutoFixtures {
  static final ObjectKey SVC = new ObjectKey(Fixtures.NAMESPACE, "svc");

  private AutoFixtures() {}

  /** A ready endpoint in a zone (null for none), without hints. */
  static Endpoint ready(String ip, String zone) {
    return Fixtures.endpoint(ip, zone, null, true).build();
  }

  static Endpoint unready(String ip, String zone) {
    return Fixtures.endpoint(ip, zone, null, false).build();
  }

  /** Readiness not reported (ready is null), which upstream treats as not ready. */
  static Endpoint unknown(String ip, String zone) {
    return Fixtures.endpoint(ip, zone, null, null).build();
  }

  /** The endpoint with hints for the given zones (an empty array gives an empty hints object). */
  static Endpoint hinted(Endpoint endpoint, String... zones) {
    return Fixtures.withHints(endpoint, Fixtures.hints(List.of(zones), null));
  }

  static EndpointSlice slice(String name, Endpoint... endpoints) {
    return Fixtures.slice(name, SVC.name(), endpoints);
  }

  static SliceInfo info(
      List<EndpointSlice> toCreate, List<EndpointSlice> toUpdate, List<EndpointSlice> unchanged) {
    return new SliceInfo(SVC, "IPv4", toCreate, toUpdate, unchanged);
  }

  /** A slice of {@code ready} ready endpoints followed by {@code unready} unready ones. */
  static EndpointSlice sliceWithEndpoints(String name, int ready, int unready) {
    var endpoints = new ArrayList<Endpoint>();
    for (int i = 0; i < ready + unready; i++) {
      var ip = "10.1." + (i / 250) + "." + (i % 250);
      endpoints.add(i < ready ? ready(ip, null) : unready(ip, null));
    }
    return slice(name, endpoints.toArray(Endpoint[]::new));
  }

  /**
   * Each endpoint of a slice as {@code ip:hints}: {@code -} for no hints, otherwise the hinted
   * zones joined by commas ({@code {}} for an empty hints object), then {@code +nodes} if any node
   * hint is present.
   */
  static List<String> hintsOf(EndpointSlice slice) {
    return slice.getEndpoints().stream().map(AutoFixtures::hintOf).toList();
  }

  static List<List<String>> hintsOf(List<EndpointSlice> slices) {
    return slices.stream().map(AutoFixtures::hintsOf).toList();
  }

  private static String hintOf(Endpoint endpoint) {
    var ip = endpoint.getAddresses().get(0);
    var hints = endpoint.getHints();
    if (hints == null) {
      return ip + ":-";
    }
    var zones =
        hints.getForZones() == null
            ? List.<String>of()
            : hints.getForZones().stream().map(zone -> zone.getName()).toList();
    var text = zones.isEmpty() ? "{}" : zones.stream().collect(Collectors.joining(","));
    boolean nodes = hints.getForNodes() != null && !hints.getForNodes().isEmpty();
    return ip + ":" + text + (nodes ? "+nodes" : "");
  }

  /** A Node with a Ready condition of the given status (null for no condition at all). */
  static Node node(String zone, String cpu, String readyStatus, String... extraLabels) {
    var labels = new HashMap<String, String>();
    if (zone != null) {
      labels.put(Labels.ZONE, zone);
    }
    for (var label : extraLabels) {
      labels.put(label, "");
    }
    var builder =
        new NodeBuilder()
            .withNewMetadata()
            .withName("node-" + zone + "-" + cpu)
            .withLabels(labels)
            .endMetadata()
            .withNewStatus()
            .withAllocatable(cpu == null ? Map.of() : Map.of("cpu", new Quantity(cpu)))
            .endStatus();
    if (readyStatus != null) {
      builder
          .editStatus()
          .addNewCondition()
          .withType("Ready")
          .withStatus(readyStatus)
          .endCondition()
          .endStatus();
    }
    return builder.build();
  }

  static Node readyNode(String zone, String cpu) {
    return node(zone, cpu, "True");
  }
}
