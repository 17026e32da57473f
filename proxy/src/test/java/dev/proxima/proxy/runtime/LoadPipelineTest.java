package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-over between a cold rebuild's renderer and its loader thread. */
class LoadPipelineTest {
  private final List<String> loaded = Collections.synchronizedList(new ArrayList<>());

  @Test
  void everyTransactionIsLoadedInOrderOnTheNamedThread() {
    var threads = Collections.synchronizedList(new ArrayList<String>());
    var pipeline =
        new LoadPipeline(
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
  void aRefusedTransactionStopsTheOnesAfterIt() {
    var pipeline =
        new LoadPipeline(
            "loader", transaction -> !transaction.equals("t2") && loaded.add(transaction));

    var taken = new ArrayList<Boolean>();
    for (int i = 0; i < 20; i++) {
      taken.add(pipeline.offer("t" + i));
    }

    assertThat(pipeline.finish()).isFalse();
    assertThat(loaded).containsExactly("t0", "t1");
    // The caller learns of the refusal within a transaction or two and can stop writing.
    assertThat(taken.subList(5, 20)).containsOnly(false);
  }

  @Test
  void aLoaderThatThrowsNeverLeavesTheCallerWaitingAndItsExceptionComesBackAtTheEnd() {
    var pipeline =
        new LoadPipeline(
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
