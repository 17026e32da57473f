package dev.proxima.proxy.runtime;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the heap grow more freely until the first sync has programmed every family, then returns it
 * to the operator's growth policy and to the size that policy keeps.
 *
 * <p>The DaemonSet's JVM keeps its heap within 10–20% of its live data ({@code
 * -XX:MinHeapFreeRatio} and {@code -XX:MaxHeapFreeRatio}), which is what holds a node's proxy to
 * its memory budget. But during a cold start the live data grows from nothing to the whole
 * cluster's Services and slices in about a second, and under that policy each step of growth past
 * the old generation's size is a full collection: six of them, 0.25–0.3 s of pauses at 10,000
 * Services (docs/performance.md, new node). Both ratios are manageable flags, so the proxy raises
 * them for the start and puts back the operator's values after it, then collects once so the serial
 * collector gives back what the start grew; it does so at once only with {@code
 * -XX:-ShrinkHeapInSteps}, which is why that flag is one of the conditions.
 *
 * <p>The growth is held to about a budget, a third of the heap's maximum (119 MiB under the
 * DaemonSet's 512 MiB limit): after each collection the minimum free ratio comes down so that the
 * next full collection grows the heap to about the budget at most, and once the heap is that large
 * the operator's ratios are back. The JVM reports collections after the fact and what a full
 * collection keeps can exceed what was in use at the last report, so the bound is not exact. A
 * small cluster's start then runs without the series of full collections, while a large one's peak
 * stays about where the operator's ratios put it (10,000 Services × 10 endpoints within 256 MiB,
 * docs/performance.md; raised without a budget, its peak was 308 MiB).
 *
 * <p>The budget, not the start's ratios, is what bounds the growth. The start's minimum of 95
 * leaves it in charge from the first collection on, so the start's first full collection, with a
 * few MiB in use and about 10 ms long, grows the heap to about the budget at once; a maximum of 100
 * never shrinks it before the first sync. With a minimum of 70 the heap got there over two or three
 * more full collections, the last of them 0.1–0.2 s in the middle of the first sync.
 *
 * <p>Nothing changes unless the JVM runs the serial collector, may collect on request and shrinks
 * in one step, and the operator's ratios are below the start's: any other JVM keeps its flags.
 */
public final class StartupHeap {
  private static final Logger log = LoggerFactory.getLogger(StartupHeap.class);

  static final int START_MIN_FREE_RATIO = 95;
  static final int START_MAX_FREE_RATIO = 100;

  /** What the proxy reads and changes of its JVM; a fake in tests. */
  interface Vm {
    Optional<String> option(String name);

    void setOption(String name, String value);

    /** A full collection, as {@link System#gc()}. */
    void collect();

    long committedHeapBytes();

    long usedHeapBytes();

    long maxHeapBytes();

    /** The young generation's largest size: a full collection may keep what it holds. */
    long maxYoungBytes();

    /**
     * Runs {@code afterCollection} after each garbage collection.
     *
     * @return stops it
     */
    Runnable afterEachCollection(Runnable afterCollection);
  }

  private final Vm vm;
  private final Clock clock;
  private final String minFreeRatio;
  private final String maxFreeRatio;
  private final long budgetBytes;

  /** What the old generation may grow to within the budget, beside the largest young one. */
  private final long oldBudgetBytes;

  private final int operatorMinFreeRatio;
  private Runnable stopListening = () -> {};
  private int raisedMinFreeRatio = START_MIN_FREE_RATIO;
  private boolean growing;
  private boolean ratiosBack;
  private boolean settled;

  private StartupHeap(Vm vm, Clock clock, String minFreeRatio, String maxFreeRatio) {
    this.vm = vm;
    this.clock = clock;
    this.minFreeRatio = minFreeRatio;
    this.maxFreeRatio = maxFreeRatio;
    this.budgetBytes = vm == null ? 0 : vm.maxHeapBytes() / 3;
    // Read once: neither changes while the JVM runs, and each collection would ask again.
    this.oldBudgetBytes = vm == null ? 1 : Math.max(1, budgetBytes - vm.maxYoungBytes());
    this.operatorMinFreeRatio = minFreeRatio == null ? 0 : Integer.parseInt(minFreeRatio);
    this.growing = minFreeRatio != null;
    this.settled = minFreeRatio == null;
  }

  /** The JVM's own free ratios from the start: nothing to give back. */
  public static StartupHeap none() {
    return new StartupHeap(null, null, null, null);
  }

  /**
   * Raises this JVM's heap free ratios for the start, when it can put them back after. A runtime
   * without the {@code jdk.management} module (a jlink image that left it out) starts with its own.
   */
  public static StartupHeap raise(Clock clock) {
    Vm vm;
    try {
      vm = new ThisJvm();
    } catch (LinkageError | RuntimeException noManagement) {
      log.atInfo()
          .addKeyValue("cause", noManagement.toString())
          .log(
              "The JVM cannot change its heap free ratios (no jdk.management module); the heap"
                  + " grows by its own during the start");
      return none();
    }
    return raise(vm, clock);
  }

  static StartupHeap raise(Vm vm, Clock clock) {
    try {
      var min = vm.option("MinHeapFreeRatio");
      var max = vm.option("MaxHeapFreeRatio");
      var whyNot = whyNotRaised(vm, min, max);
      if (whyNot.isPresent()) {
        log.atDebug()
            .addKeyValue("why", whyNot.get())
            .log("The heap grows by the JVM's own free ratios during the start");
        return none();
      }
      var heap = new StartupHeap(vm, clock, min.get(), max.get());
      return heap.raiseOrPutBack() ? heap : none();
    } catch (RuntimeException unreadable) {
      log.atInfo()
          .setCause(unreadable)
          .log("Could not read the heap's free ratios; the heap grows by the JVM's own");
      return none();
    }
  }

  /** The listener first, so that a refused change leaves nothing to stop but it. */
  private synchronized boolean raiseOrPutBack() {
    try {
      stopListening = vm.afterEachCollection(this::collected);
      // The JVM refuses a minimum above the maximum, so the maximum goes up first.
      vm.setOption("MaxHeapFreeRatio", Integer.toString(START_MAX_FREE_RATIO));
      vm.setOption("MinHeapFreeRatio", Integer.toString(START_MIN_FREE_RATIO));
      return true;
    } catch (RuntimeException refused) {
      stopListening.run();
      growing = false; // should the listener outlive its removal
      // Whatever was raised goes back; a value already the operator's is set to itself.
      boolean back = putBackRatios();
      log.atInfo()
          .setCause(refused)
          .addKeyValue("ratiosPutBack", back)
          .log("Could not raise the heap's free ratios for the start; it grows by the JVM's own");
      return false;
    }
  }

  private static Optional<String> whyNotRaised(
      Vm vm, Optional<String> minFreeRatio, Optional<String> maxFreeRatio) {
    if (!"true".equals(vm.option("UseSerialGC").orElse("false"))) {
      return Optional.of("not the serial collector");
    }
    if ("true".equals(vm.option("DisableExplicitGC").orElse("false"))) {
      return Optional.of("-XX:+DisableExplicitGC: the start's growth could not be given back");
    }
    if (!"false".equals(vm.option("ShrinkHeapInSteps").orElse("true"))) {
      return Optional.of("-XX:+ShrinkHeapInSteps: the start's growth would be given back slowly");
    }
    var min = minFreeRatio.map(Integer::parseInt);
    var max = maxFreeRatio.map(Integer::parseInt);
    if (min.isEmpty() || max.isEmpty()) {
      return Optional.of("the JVM does not tell its free ratios");
    }
    if (min.get() >= START_MIN_FREE_RATIO || max.get() >= START_MAX_FREE_RATIO) {
      return Optional.of("the operator's free ratios already let the heap grow");
    }
    return Optional.empty();
  }

  /**
   * After a collection: the next full collection grows the old generation to what it keeps × 100 /
   * (100 - the minimum free ratio), beside a young generation of up to its largest size, and it
   * keeps about what is in use now (more by what the young generation promotes meanwhile), so a
   * minimum of 100 × (1 - in use / (budget - young)) holds the heap to about the budget. The ratio
   * only comes down; at the operator's minimum, or once the heap is as large as the budget, the
   * start's growth is over.
   */
  private synchronized void collected() {
    if (!growing) {
      return;
    }
    long used = vm.usedHeapBytes();
    long committed = vm.committedHeapBytes();
    int ratio =
        (int) Math.min(START_MIN_FREE_RATIO, 100 - Math.ceil(100.0 * used / oldBudgetBytes));
    if (ratio <= operatorMinFreeRatio || committed >= budgetBytes) {
      log.atDebug()
          .addKeyValue("usedMiB", used >> 20)
          .addKeyValue("committedMiB", committed >> 20)
          .addKeyValue("budgetMiB", budgetBytes >> 20)
          .log("The heap reached the start's budget; it grows by the operator's free ratios");
      growing = false;
      ratiosBack = putBackRatios();
    } else if (ratio < raisedMinFreeRatio) {
      raisedMinFreeRatio = ratio;
      setOrWarn("MinHeapFreeRatio", Integer.toString(ratio));
    }
  }

  /**
   * Puts back the operator's free ratios and collects once, the first time it is called; later
   * calls do nothing. Called on the sync thread after the first pass that planned every family.
   */
  public synchronized void settle() {
    if (settled) {
      return;
    }
    settled = true;
    stopListening.run();
    if (growing) {
      growing = false;
      ratiosBack = putBackRatios();
    }
    if (!ratiosBack) {
      // Warned as it failed: a collection under the start's ratios would give nothing back.
      return;
    }
    long before = vm.committedHeapBytes();
    var started = clock.instant();
    vm.collect();
    long pauseMillis = Duration.between(started, clock.instant()).toMillis();
    log.atInfo()
        .addKeyValue("heapBeforeMiB", before >> 20)
        .addKeyValue("heapAfterMiB", vm.committedHeapBytes() >> 20)
        .addKeyValue("collectionMs", pauseMillis)
        .addKeyValue("minHeapFreeRatio", minFreeRatio)
        .addKeyValue("maxHeapFreeRatio", maxFreeRatio)
        .log("Returned the heap to its steady-state size after the first sync");
  }

  /**
   * The minimum goes down first: the JVM refuses a minimum above the maximum. Each is tried, so a
   * maximum raised before the JVM refused the minimum still goes back.
   */
  private boolean putBackRatios() {
    boolean minimumBack = setOrWarn("MinHeapFreeRatio", minFreeRatio);
    boolean maximumBack = setOrWarn("MaxHeapFreeRatio", maxFreeRatio);
    return minimumBack && maximumBack;
  }

  private boolean setOrWarn(String option, String value) {
    try {
      vm.setOption(option, value);
      return true;
    } catch (RuntimeException refused) {
      log.atWarn()
          .setCause(refused)
          .addKeyValue("option", option)
          .addKeyValue("value", value)
          .log("Could not set a heap free ratio after the start; the heap may stay large");
      return false;
    }
  }

  private static final class ThisJvm implements Vm {
    private final HotSpotDiagnosticMXBean bean =
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

    @Override
    public Optional<String> option(String name) {
      try {
        return Optional.of(bean.getVMOption(name).getValue());
      } catch (IllegalArgumentException unknown) {
        return Optional.empty();
      }
    }

    @Override
    public void setOption(String name, String value) {
      bean.setVMOption(name, value);
    }

    @Override
    @SuppressWarnings("java:S1215") // the point: one collection that gives back the start's growth
    public void collect() {
      System.gc();
    }

    @Override
    public long committedHeapBytes() {
      return Runtime.getRuntime().totalMemory();
    }

    @Override
    public long usedHeapBytes() {
      return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }

    @Override
    public long maxHeapBytes() {
      return Runtime.getRuntime().maxMemory();
    }

    @Override
    public long maxYoungBytes() {
      return option("MaxNewSize").map(Long::parseLong).orElse(0L);
    }

    @Override
    public Runnable afterEachCollection(Runnable afterCollection) {
      NotificationListener listener = (notification, handback) -> afterCollection.run();
      var emitters = new ArrayList<NotificationEmitter>();
      for (var collector : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (collector instanceof NotificationEmitter emitter) {
          emitter.addNotificationListener(listener, null, null);
          emitters.add(emitter);
        }
      }
      return () -> {
        for (var emitter : emitters) {
          try {
            emitter.removeNotificationListener(listener);
          } catch (ListenerNotFoundException gone) {
            // Already stopped: nothing to do.
          }
        }
      };
    }
  }
}
