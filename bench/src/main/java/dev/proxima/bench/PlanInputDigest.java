package dev.proxima.bench;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.NodePlanner;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A digest of everything the proxy's planner reads to plan one Service on one node: the Service,
 * its EndpointSlices as the proxy holds them, and the node basis (family, node name, zone and
 * addresses, the handled service-proxy-name, the rule settings and the proxy's build). It is what a
 * restart that does not plan would key a saved plan by; the restart probe ({@link RestartProbe})
 * measures what computing and looking it up costs. Not used by the proxy.
 *
 * <p>Sound by construction rather than by care: each object is written in a fixed field order as
 * tagged, length-prefixed values (null, absent and empty all distinct), so the encoding is
 * injective, and then hashed with SHA-256. A tenant owns its Services and slices and could search
 * for two inputs with the same digest, making a restarted proxy keep a stale plan; with SHA-256
 * that takes about 2^128 work, while fast non-cryptographic 128-bit hashes do not resist chosen
 * collisions (Murmur3's seed-independent ones are published). Fields are a superset of those the
 * planner reads (every label and annotation the proxy keeps, not only the ones it looks at): a
 * superfluous field costs a needless re-plan, a missing one a wrong rule.
 *
 * <p>The per-object digests can be computed as each object is decoded; a restart then compares them
 * with the saved ones one by one. {@link #combine} joins one Service's into a single digest, for a
 * design that saves one per Service, at the cost of one more SHA-256 per Service.
 */
public final class PlanInputDigest {
  private static final Comparator<NamedDigest> BY_NAME =
      Comparator.comparing(NamedDigest::namespace, Comparator.nullsFirst(String::compareTo))
          .thenComparing(NamedDigest::name, Comparator.nullsFirst(String::compareTo));

  private final MessageDigest sha;
  private final Encoder out = new Encoder();

  /** Not thread-safe: one per thread. */
  public PlanInputDigest() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** One slice's digest beside its name, for {@link #combine}. */
  public record NamedDigest(String namespace, String name, byte[] digest) {}

  /**
   * The node basis: what every Service's plan and render depend on besides the Service.
   *
   * @param settings the rule settings the ports are rendered with, e.g. the assembler's settings
   *     digest
   * @param build the proxy's build: another release may plan the same input differently
   */
  public byte[] basis(
      IpFamily family,
      String nodeName,
      Node node,
      String serviceProxyName,
      String settings,
      String build) {
    out.reset("proxima.plan-basis.v1");
    out.string(family.apiName());
    out.string(nodeName);
    out.string(serviceProxyName);
    out.string(NodePlanner.zoneOf(node));
    var status = node == null ? null : node.getStatus();
    out.list(
        status == null ? null : status.getAddresses(),
        (address, o) -> {
          o.string(address == null ? null : address.getType());
          o.string(address == null ? null : address.getAddress());
        });
    out.string(settings);
    out.string(build);
    return hash();
  }

  /** The digest of the fields of a Service the planner may read. */
  public byte[] service(Service service) {
    out.reset("proxima.service.v1");
    var meta = service.getMetadata();
    out.present(meta);
    if (meta != null) {
      out.string(meta.getNamespace());
      out.string(meta.getName());
      out.string(meta.getUid());
      out.string(meta.getCreationTimestamp());
      out.map(meta.getLabels());
      out.map(meta.getAnnotations());
    }
    var spec = service.getSpec();
    out.present(spec);
    if (spec != null) {
      out.string(spec.getType());
      out.string(spec.getClusterIP());
      out.strings(spec.getClusterIPs());
      out.strings(spec.getExternalIPs());
      out.strings(spec.getLoadBalancerSourceRanges());
      out.string(spec.getSessionAffinity());
      var affinity = spec.getSessionAffinityConfig();
      var clientIp = affinity == null ? null : affinity.getClientIP();
      out.present(clientIp);
      if (clientIp != null) {
        out.integer(clientIp.getTimeoutSeconds());
      }
      out.string(spec.getInternalTrafficPolicy());
      out.string(spec.getExternalTrafficPolicy());
      out.integer(spec.getHealthCheckNodePort());
      out.string(spec.getTrafficDistribution());
      out.list(
          spec.getPorts(),
          (port, o) -> {
            o.port(
                port,
                port == null ? null : port.getName(),
                port == null ? null : port.getProtocol(),
                port == null ? null : port.getPort());
            if (port != null) {
              o.integer(port.getNodePort());
            }
          });
    }
    var status = service.getStatus();
    var balancer = status == null ? null : status.getLoadBalancer();
    out.list(
        balancer == null ? null : balancer.getIngress(),
        (ingress, o) -> {
          o.present(ingress);
          if (ingress != null) {
            o.string(ingress.getIp());
            o.string(ingress.getIpMode());
          }
        });
    return hash();
  }

  /** The digest of the fields of an EndpointSlice the planner may read. */
  public byte[] slice(EndpointSlice slice) {
    out.reset("proxima.slice.v1");
    var meta = slice.getMetadata();
    out.present(meta);
    if (meta != null) {
      out.string(meta.getNamespace());
      out.string(meta.getName());
      out.map(meta.getLabels());
    }
    out.string(slice.getAddressType());
    out.list(
        slice.getPorts(),
        (port, o) ->
            o.port(
                port,
                port == null ? null : port.getName(),
                port == null ? null : port.getProtocol(),
                port == null ? null : port.getPort()));
    out.list(
        slice.getEndpoints(),
        (endpoint, o) -> {
          o.present(endpoint);
          if (endpoint == null) {
            return;
          }
          o.strings(endpoint.getAddresses());
          var conditions = endpoint.getConditions();
          o.present(conditions);
          if (conditions != null) {
            o.bool(conditions.getReady());
            o.bool(conditions.getServing());
            o.bool(conditions.getTerminating());
          }
          o.string(endpoint.getNodeName());
          o.string(endpoint.getZone());
          var hints = endpoint.getHints();
          o.present(hints);
          if (hints != null) {
            o.list(
                hints.getForZones(), (zone, z) -> z.string(zone == null ? null : zone.getName()));
            o.list(
                hints.getForNodes(), (node, n) -> n.string(node == null ? null : node.getName()));
          }
        });
    return hash();
  }

  /**
   * One Service's digest: the basis, the Service's own digest and its slices' (in namespace and
   * name order, so the order they arrived in does not matter).
   */
  public byte[] combine(byte[] basis, byte[] service, List<NamedDigest> slices) {
    var ordered = slices;
    if (slices.size() > 1) {
      ordered = new ArrayList<>(slices);
      ordered.sort(BY_NAME);
    }
    out.reset("proxima.plan-input.v1");
    out.bytes(basis);
    out.bytes(service);
    out.list(ordered, (slice, o) -> o.bytes(slice.digest()));
    return hash();
  }

  /** {@link #combine} of a Service and its slices digested here. */
  public byte[] of(byte[] basis, Service service, List<EndpointSlice> slices) {
    var named = new ArrayList<NamedDigest>(slices.size());
    for (var slice : slices) {
      var meta = slice.getMetadata();
      named.add(
          new NamedDigest(
              meta == null ? null : meta.getNamespace(),
              meta == null ? null : meta.getName(),
              slice(slice)));
    }
    return combine(basis, service(service), named);
  }

  private byte[] hash() {
    sha.reset();
    sha.update(out.buffer, 0, out.length);
    return sha.digest();
  }

  /**
   * The canonical encoding: one tag byte per value (absent, or present), lengths and counts as
   * unsigned varints, text as UTF-8, maps in key order. Injective for a fixed field order.
   */
  static final class Encoder {
    private static final byte ABSENT = 0;
    private static final byte PRESENT = 1;
    private byte[] buffer = new byte[512];
    private int length;

    void reset(String domain) {
      length = 0;
      string(domain);
    }

    void present(Object value) {
      put(value == null ? ABSENT : PRESENT);
    }

    void string(String value) {
      present(value);
      if (value != null) {
        int chars = value.length();
        if (chars < 0x80 && ascii(value)) {
          // Names and addresses are ASCII: written as they are, without a copy. The same bytes as
          // UTF-8 would be, so the encoding does not depend on the path.
          put((byte) chars);
          ensure(chars);
          for (int i = 0; i < chars; i++) {
            buffer[length++] = (byte) value.charAt(i);
          }
          return;
        }
        var utf8 = value.getBytes(StandardCharsets.UTF_8);
        varint(utf8.length);
        ensure(utf8.length);
        System.arraycopy(utf8, 0, buffer, length, utf8.length);
        length += utf8.length;
      }
    }

    void bytes(byte[] value) {
      present(value);
      if (value != null) {
        varint(value.length);
        ensure(value.length);
        System.arraycopy(value, 0, buffer, length, value.length);
        length += value.length;
      }
    }

    void integer(Integer value) {
      present(value);
      if (value != null) {
        // Zig-zag, so negative values (invalid, but the planner warns about them) stay short.
        varint((value << 1) ^ (value >> 31));
      }
    }

    /** Unset, false and true are three values: the planner reads unset as true for some. */
    void bool(Boolean value) {
      put(value == null ? (byte) 0 : value ? (byte) 2 : (byte) 1);
    }

    /** A Service's or a slice's port: whether there is one, then its name, protocol and number. */
    void port(Object port, String name, String protocol, Integer number) {
      present(port);
      if (port != null) {
        string(name);
        string(protocol);
        integer(number);
      }
    }

    void strings(List<String> values) {
      list(values, (value, o) -> o.string(value));
    }

    <T> void list(List<T> values, BiConsumer<T, Encoder> each) {
      present(values);
      if (values != null) {
        varint(values.size());
        for (var value : values) {
          each.accept(value, this);
        }
      }
    }

    void map(Map<String, String> values) {
      present(values);
      if (values != null) {
        varint(values.size());
        var keys = values.keySet().toArray(new String[0]);
        Arrays.sort(keys, Comparator.nullsFirst(Comparator.naturalOrder()));
        for (var key : keys) {
          string(key);
          string(values.get(key));
        }
      }
    }

    private static boolean ascii(String value) {
      for (int i = 0; i < value.length(); i++) {
        if (value.charAt(i) >= 0x80) {
          return false;
        }
      }
      return true;
    }

    private void varint(int value) {
      ensure(5);
      int v = value;
      while ((v & ~0x7f) != 0) {
        buffer[length++] = (byte) ((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      buffer[length++] = (byte) v;
    }

    private void put(byte value) {
      ensure(1);
      buffer[length++] = value;
    }

    private void ensure(int more) {
      if (length + more > buffer.length) {
        buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
      }
    }

    /** What was written since the last reset, for tests. */
    byte[] written() {
      return Arrays.copyOf(buffer, length);
    }
  }
}
