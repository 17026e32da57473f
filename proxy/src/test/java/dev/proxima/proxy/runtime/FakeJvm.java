package dev.proxima.proxy.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A JVM's options as HotSpot keeps them: a minimum free ratio above the maximum is refused. */
final class FakeJvm implements StartupHeap.Vm {
  final Map<String, String> options = new HashMap<>();
  final List<String> changes = new ArrayList<>();
  int collections;
  boolean refuseChanges;

  /** Refuses changes of this option only. */
  String refuseOption;

  /** The DaemonSet's flags. */
  static FakeJvm asDeployed() {
    var jvm = new FakeJvm();
    jvm.options.put("UseSerialGC", "true");
    jvm.options.put("DisableExplicitGC", "false");
    jvm.options.put("ShrinkHeapInSteps", "false");
    jvm.options.put("MinHeapFreeRatio", "10");
    jvm.options.put("MaxHeapFreeRatio", "20");
    return jvm;
  }

  @Override
  public synchronized Optional<String> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  @Override
  public synchronized void setOption(String name, String value) {
    if (refuseChanges || name.equals(refuseOption)) {
      throw new IllegalArgumentException("VM option \"" + name + "\" is not writeable");
    }
    int ratio = Integer.parseInt(value);
    if (name.equals("MinHeapFreeRatio")
        && ratio > Integer.parseInt(options.get("MaxHeapFreeRatio"))) {
      throw new IllegalArgumentException("MinHeapFreeRatio must be at most MaxHeapFreeRatio");
    }
    if (name.equals("MaxHeapFreeRatio")
        && ratio < Integer.parseInt(options.get("MinHeapFreeRatio"))) {
      throw new IllegalArgumentException("MaxHeapFreeRatio must be at least MinHeapFreeRatio");
    }
    options.put(name, value);
    changes.add(name + "=" + value);
  }

  /** Runs as each collection is asked for. */
  Runnable onCollect = () -> {};

  @Override
  public synchronized void collect() {
    collections++;
    onCollect.run();
  }

  synchronized int collections() {
    return collections;
  }

  long committedBytes = 64L << 20;

  @Override
  public synchronized long committedHeapBytes() {
    return committedBytes;
  }

  long usedBytes;
  Runnable afterCollection;

  /** A collection that left {@code usedMiB} of the heap in use. */
  void collected(long usedMiB) {
    usedBytes = usedMiB << 20;
    if (afterCollection != null) {
      afterCollection.run();
    }
  }

  @Override
  public synchronized long usedHeapBytes() {
    return usedBytes;
  }

  /** The DaemonSet's: 70% of 512 MiB, a budget of 119 MiB. */
  @Override
  public long maxHeapBytes() {
    return 358L << 20;
  }

  /** The DaemonSet's -XX:MaxNewSize=16m. */
  @Override
  public long maxYoungBytes() {
    return 16L << 20;
  }

  @Override
  public synchronized Runnable afterEachCollection(Runnable afterCollection) {
    this.afterCollection = afterCollection;
    return () -> this.afterCollection = null;
  }
}
