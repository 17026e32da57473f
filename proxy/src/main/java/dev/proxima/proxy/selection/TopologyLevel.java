package dev.proxima.proxy.selection;

/**
 * The topology level that filtered a Service's Cluster endpoint list on this node: kube-proxy's
 * topology mode, where {@link #NONE} is upstream's empty mode (every ready endpoint is used).
 *
 * <p>It never applies to the Local list, which is only ever filtered by locality.
 */
public enum TopologyLevel {
  PREFER_SAME_NODE("PreferSameNode"),

  PREFER_SAME_ZONE("PreferSameZone"),

  NONE("None");

  private final String displayName;

  TopologyLevel(String displayName) {
    this.displayName = displayName;
  }

  public String displayName() {
    return displayName;
  }

  @Override
  public String toString() {
    return displayName;
  }
}
