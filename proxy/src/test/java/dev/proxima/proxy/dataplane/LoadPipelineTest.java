package dev.proxima.proxy.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The hand-over between a cold rebuild's renderer and its loader thread. */
class LoadPipelineTest {
  private final List<String> loaded = Collections.synchronizedList(new ArrayList<>());

  @Test
  void transactionsLoadInOrderOnTheNamedThread() {
    var threads = Collections.synchronizedList(new ArrayList<String>());
    var pipeline =
        new LoadPipeline<String>(
            "loader-under-test",
            transaction -> {
              threads.add(Thread.currentThread().getName());
              return loaded.add(transaction);
            });

    for (int i = 0; i < 20; i++) {
      assertThat(pipeline.offer("t" + i)).isTrue();
    }

    assertThat(pipeline.finish()).isTrue();
    assertThat(loaded).containsExactly(numbered(20).toArray(String[]::new));
    assertThat(threads).containsOnly("loader-under-test");
  }

  @Test
  void neverTwoTransactionsLoadAtOnce() {
    var inFlight = new AtomicInteger();
    var most = new AtomicInteger();
    var pipeline =
        new LoadPipeline<String>(
            "loader",
            transaction -> {
              most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              Thread.yield();
              inFlight.decrementAndGet();
              return loaded.add(transaction);
            });

    for (int i = 0; i < 50; i++) {
      pipeline.offer("t" + i);
    }

    assertThat(pipeline.finish()).isTrue();
    assertThat(most.get()).isEqualTo(1);
  }

  @Test
  void noTransactionLoadsAfterARefusedOne() {
    var pipeline =
        new LoadPipeline<String>(
            "loader", transaction -> !transaction.equals("t2") && loaded.add(transaction));

    for (int i = 0; i < 20; i++) {
      pipeline.offer("t" + i);
    }

    assertThat(pipeline.finish()).isFalse();
    assertThat(loaded).containsExactly("t0", "t1");
    assertThat(pipeline.offer("t20")).isFalse();
  }

  @Test
  void aLoaderThatThrowsNeverLeavesTheCallerWaitingAndItsExceptionComesBackAtTheEnd() {
    var pipeline =
        new LoadPipeline<String>(
            "loader",
            transaction -> {
              if (transaction.equals("t1")) {
                throw new IllegalStateException("nft vanished");
              }
              return loaded.add(transaction);
            });

    for (int i = 0; i < 20; i++) {
      pipeline.offer("t" + i);
    }

    assertThatThrownBy(pipeline::finish).hasMessage("nft vanished");
    assertThat(loaded).containsExactly("t0");
  }

  private static List<String> numbered(int count) {
    var out = new ArrayList<String>();
    for (int i = 0; i < count; i++) {
      out.add("t" + i);
    }
    return out;
  }
}
