package dev.proxima.bench;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The CRUD mock with an index: fabric8's dispatcher finds the stored object of every create, update
 * and patch by scanning its whole store, so filling it with 20,000 objects costs minutes and every
 * write in a large cluster costs milliseconds a real API server does not spend. This one keeps the
 * stored keys by identity (group, version, resource, namespace, name) beside the store and answers
 * those look-ups from it; anything it cannot answer goes to the scan.
 *
 * <p>It also keeps what fabric8's mock forgets: deletions. fabric8 informers end each watch after
 * five to ten minutes and watch again from the last resourceVersion they saw. A real API server
 * then sends every event since that version; the mock ignores the version and replays what it holds
 * as ADDED, so an object deleted between the two watches stays in the informer's cache for good. A
 * long run (the soak) then measures the mock, not the proxy. This dispatcher remembers each deleted
 * object with the resourceVersion of its deletion and sends a DELETED event for every one newer
 * than the version a watch starts from. A DELETED event the client had already seen is sent again
 * at most; informers ignore the deletion of an object they do not hold.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
  private static final List<String> IDENTITY =
      List.of("api", "version", "plural", "namespace", "name");

  private final IndexedStore store = new IndexedStore();
  private final Map<AttributeSet, String> synchronizedStore = Collections.synchronizedMap(store);

  /** A deleted object: its key, its last state and the resourceVersion after its deletion. */
  private record Tombstone(AttributeSet key, String object, long resourceVersion) {}

  /** The most recent deletions, oldest first. */
  private final Deque<Tombstone> tombstones = new ConcurrentLinkedDeque<>();

  private static final int TOMBSTONES_KEPT = 100_000;

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

  @Override
  public MockResponse handleDelete(String path) {
    var query = getKey(path);
    var matching = new ArrayList<Map.Entry<AttributeSet, String>>();
    if (query.getAttribute("name") != null) {
      // One object by name: the index finds it without a scan of the store.
      var found = findResource(query);
      if (found != null) {
        matching.add(found);
      }
    } else {
      synchronized (synchronizedStore) {
        for (var entry : store.entrySet()) {
          if (entry.getKey().matches(query)) {
            matching.add(Map.entry(entry.getKey(), entry.getValue()));
          }
        }
      }
    }
    var response = super.handleDelete(path);
    for (var entry : matching) {
      if (!synchronizedStore.containsKey(entry.getKey())) {
        tombstones.addLast(
            new Tombstone(entry.getKey(), entry.getValue(), requestResourceVersion()));
        if (tombstones.size() > TOMBSTONES_KEPT) {
          tombstones.pollFirst();
        }
      }
    }
    return response;
  }

  @Override
  public MockResponse handleWatch(String path) {
    var response = super.handleWatch(path);
    var since = resourceVersionOf(path);
    var listener = response.getWebSocketListener();
    if (since < 0 || listener == null) {
      // A watch without a version starts from now: the mock's replay of what it holds stands for
      // the synthetic ADDED events a real API server sends then.
      return response;
    }
    try {
      var matches = listener.getClass().getMethod("attributeMatches", AttributeSet.class);
      var send =
          listener
              .getClass()
              .getMethod("sendWebSocketResponse", String.class, Watcher.Action.class);
      matches.setAccessible(true);
      send.setAccessible(true);
      var openAction = listener.getClass().getDeclaredField("onOpenAction");
      openAction.setAccessible(true);
      Consumer<Object> replay = opened -> replaySince(opened, since, matches, send);
      openAction.set(listener, replay);
    } catch (ReflectiveOperationException e) {
      throw new HarnessError("cannot replace the replay of the mock API server's watches", e);
    }
    return response;
  }

  /** One event of a replay: an object changed or deleted after the watch's version. */
  private record Replayed(long resourceVersion, String object, Watcher.Action action) {}

  /**
   * What a real API server sends a watch that starts from {@code since}: the objects changed since
   * (as ADDED; an informer that holds one takes it as an update) and the deletions since, in the
   * order they happened. The mock itself would replay everything it holds.
   */
  private void replaySince(Object listener, long since, Method matches, Method send) {
    var events = new ArrayList<Replayed>();
    try {
      synchronized (synchronizedStore) {
        for (var entry : store.entrySet()) {
          long version = resourceVersionIn(entry.getValue());
          if (version > since && (boolean) matches.invoke(listener, entry.getKey())) {
            events.add(new Replayed(version, entry.getValue(), Watcher.Action.ADDED));
          }
        }
      }
      for (var tombstone : tombstones) {
        if (tombstone.resourceVersion() > since
            && !synchronizedStore.containsKey(tombstone.key())
            && (boolean) matches.invoke(listener, tombstone.key())) {
          events.add(
              new Replayed(
                  tombstone.resourceVersion(), tombstone.object(), Watcher.Action.DELETED));
        }
      }
      events.sort(Comparator.comparingLong(Replayed::resourceVersion));
      for (var event : events) {
        send.invoke(listener, event.object(), event.action());
      }
    } catch (ReflectiveOperationException e) {
      throw new HarnessError("cannot replay to a watch of the mock API server", e);
    }
  }

  private static final Pattern RESOURCE_VERSION =
      Pattern.compile("\"resourceVersion\"\\s*:\\s*\"(\\d+)\"");

  /** The stored object's own resourceVersion (the first after its metadata starts); 0 if none. */
  static long resourceVersionIn(String object) {
    int metadata = object.indexOf("\"metadata\"");
    var matcher = RESOURCE_VERSION.matcher(object);
    return matcher.find(Math.max(metadata, 0)) ? Long.parseLong(matcher.group(1)) : 0;
  }

  /** The {@code resourceVersion} a watch request starts from, or -1 when it names none. */
  static long resourceVersionOf(String path) {
    var query = URI.create(path).getRawQuery();
    if (query == null) {
      return -1;
    }
    for (var parameter : query.split("&")) {
      if (parameter.startsWith("resourceVersion=")) {
        try {
          return Long.parseLong(parameter.substring("resourceVersion=".length()));
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
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
