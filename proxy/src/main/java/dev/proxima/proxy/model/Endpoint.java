package dev.proxima.proxy.model;

import java.util.Objects;
import java.util.Set;

/**
 * One endpoint of one Service port. Conditions follow kube-proxy's reading of a slice: {@code
 * ready} and {@code serving} default to true when unset, {@code terminating} to false. {@code
 * local} means the endpoint's nodeName is this proxy's node; a null {@code locality} means its zone
 * is not known (on this node when {@code local}, else unknown).
 */
public record Endpoint(
    String ip,
    int port,
    boolean ready,
    boolean serving,
    boolean terminating,
    String nodeName,
    boolean local,
    Set<String> zoneHints,
    Set<String> nodeHints,
    Locality locality) {

  public Endpoint {
    Objects.requireNonNull(ip, "ip");
    locality = locality == null ? Locality.of(local, null, null) : locality;
    zoneHints = zoneHints == null ? Set.of() : Set.copyOf(zoneHints);
    nodeHints = nodeHints == null ? Set.of() : Set.copyOf(nodeHints);
  }

  /** The identity kube-proxy de-duplicates by. */
  public String address() {
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  @Override
  public String toString() {
    return address();
  }
}
