package dev.proxima.bench;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CRUD mock with an index: fabric8's dispatcher finds the stored object of every create, update
 * and patch by scanning its whole store, so filling it with 20,000 objects costs minutes and every
 * write in a large cluster costs milliseconds a real API server does not spend. This one keeps the
 * stored keys by identity (group, version, resource, namespace, name) beside the store and answers
 * those look-ups from it; anything it cannot answer goes to the scan.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
  private static final List<String> IDENTITY =
      List.of("api", "version", "plural", "namespace", "name");

  private final IndexedStore store = new IndexedStore();
  private final Map<AttributeSet, String> synchronizedStore = Collections.synchronizedMap(store);

  IndexedCrudDispatcher() {
    try {
      var field = CrudDispatcher.class.getDeclaredField("map");
      field.setAccessible(true);
      synchronizedStore.putAll(getMap());
      field.set(this, synchronizedStore);
    } catch (ReflectiveOperationException e) {
      throw new HarnessError("cannot index the mock API server's store", e);
    }
  }

  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
    if (query.getAttribute("name") != null) {
      synchronized (synchronizedStore) {
        var candidate = store.index.get(identity(query));
        if (candidate == null) {
          return null;
        }
        if (store.containsKey(candidate) && candidate.matches(query)) {
          return Map.entry(candidate, store.get(candidate));
        }
      }
    }
    return super.findResource(query);
  }

  static String identity(AttributeSet set) {
    var key = new StringBuilder();
    for (var name : IDENTITY) {
      var attribute = set.getAttribute(name);
      key.append(attribute == null ? "" : attribute.toString()).append('|');
    }
    return key.toString();
  }

  /** The store, keeping the identity index in step with every put and remove. */
  private static final class IndexedStore extends LinkedHashMap<AttributeSet, String> {
    final Map<String, AttributeSet> index = new HashMap<>();

    @Override
    public String put(AttributeSet key, String value) {
      index.put(identity(key), key);
      return super.put(key, value);
    }

    @Override
    public String remove(Object key) {
      if (key instanceof AttributeSet set) {
        index.remove(identity(set), set);
      }
      return super.remove(key);
    }

    @Override
    public void clear() {
      index.clear();
      super.clear();
    }
  }
}
