package dev.proxima.model;

import java.util.Objects;

/** A namespaced object's identity, printed as {@code namespace/name} like client-go's keys. */
public record ObjectKey(String namespace, String name) implements Comparable<ObjectKey> {
  public ObjectKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** Parses {@code namespace/name}; a key without a slash is rejected rather than guessed. */
  public static ObjectKey parse(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0 || slash == key.length() - 1 || key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("not a namespace/name key: " + key);
    }
    return new ObjectKey(key.substring(0, slash), key.substring(slash + 1));
  }

  @Override
  public int compareTo(ObjectKey other) {
    int byNamespace = namespace.compareTo(other.namespace);
    return byNamespace != 0 ? byNamespace : name.compareTo(other.name);
  }

  // Written out: a record's generated equals and hashCode go through an invokedynamic bootstrap
  // that the proxy's C1-only JIT runs several times slower, and keys are looked up by the
  // hundred thousand at scale.
  @Override
  public boolean equals(Object other) {
    return other instanceof ObjectKey key
        && namespace.equals(key.namespace)
        && name.equals(key.name);
  }

  @Override
  public int hashCode() {
    return 31 * namespace.hashCode() + name.hashCode();
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
