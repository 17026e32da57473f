package dev.proxima.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The hand-over between a cold rebuild's renderer and its two loader threads. */
class LoadPipelineTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final List<String> loaded = Collections.synchronizedList(new ArrayList<>());

  /** "start tN" and "end tN" for every load, in the order they happened. */
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  @Test
  void transactionsHandedOverAloneLoadInOrderOnTheNamedThread() {
    var threads = Collections.synchronizedList(new ArrayList<String>());
    var pipeline =
        new LoadPipeline(
            "loader-under-test",
            transaction -> {
              threads.add(Thread.currentThread().getName());
              return loaded.add(transaction);
            });

    for (int i = 0; i < 20; i++) {
      assertThat(pipeline.offer("t" + i, true)).isTrue();
    }

    assertThat(pipeline.finish()).isTrue();
    assertThat(loaded).containsExactly(numbered(20).toArray(String[]::new));
    assertThat(threads).containsOnly("loader-under-test");
  }

  @Test
  void twoTransactionsThatNeedNotLoadAloneLoadAtTheSameTime() {
    var secondStarted = new CountDownLatch(1);
    var sawTheOther = new ArrayList<Boolean>();
    var pipeline =
        new LoadPipeline(
            "loader",
            transaction -> {
              if (transaction.equals("t2")) {
                secondStarted.countDown();
              }
              if (transaction.equals("t1")) {
                sawTheOther.add(awaited(secondStarted));
              }
              return loaded.add(transaction);
            });

    pipeline.offer("t0", true);
    pipeline.offer("t1", false);
    pipeline.offer("t2", false);

    assertThat(pipeline.finish()).isTrue();
    assertThat(sawTheOther).containsExactly(true);
    assertThat(loaded).containsExactlyInAnyOrder("t0", "t1", "t2");
  }

  @Test
  void noMoreThanTwoTransactionsLoadAtOnce() {
    var inFlight = new AtomicInteger();
    var most = new AtomicInteger();
    // Three loads that each wait for the other two would all start together if nothing held the
    // third back; with two lanes the first two give up waiting and the third comes after them.
    var allThree = new CountDownLatch(3);
    var pipeline =
        new LoadPipeline(
            "loader",
            transaction -> {
              most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              allThree.countDown();
              try {
                allThree.await(300, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              inFlight.decrementAndGet();
              return loaded.add(transaction);
            });

    for (int i = 0; i < 3; i++) {
      pipeline.offer("t" + i, false);
    }

    assertThat(pipeline.finish()).isTrue();
    assertThat(most).hasValue(2);
    assertThat(loaded).hasSize(3);
  }

  @Test
  void aTransactionHandedOverAloneWaitsForEveryEarlierOneAndEveryLaterOneWaitsForIt() {
    var pipeline = new LoadPipeline("loader", this::recorded);
    var alone = List.of(true, false, false, false, false, true, false, false, true);

    for (int i = 0; i < alone.size(); i++) {
      pipeline.offer("t" + i, alone.get(i));
    }

    assertThat(pipeline.finish()).isTrue();
    for (int i = 0; i < alone.size(); i++) {
      if (!alone.get(i)) {
        continue;
      }
      for (int other = 0; other < alone.size(); other++) {
        if (other < i) {
          assertThat(events.indexOf("end t" + other))
              .as("t%d ends before t%d, handed over alone, starts", other, i)
              .isLessThan(events.indexOf("start t" + i));
        } else if (other > i) {
          assertThat(events.indexOf("start t" + other))
              .as("t%d starts after t%d, handed over alone, ends", other, i)
              .isGreaterThan(events.indexOf("end t" + i));
        }
      }
    }
  }

  @Test
  void noTransactionHandedOverAloneLoadsAfterARefusedOne() {
    var pipeline =
        new LoadPipeline(
            "loader", transaction -> !transaction.equals("t2") && loaded.add(transaction));

    for (int i = 0; i < 20; i++) {
      pipeline.offer("t" + i, i == 0 || i == 10 || i == 19);
    }

    assertThat(pipeline.finish()).isFalse();
    // Port batches handed to the other lane may still load (each adds whole Service ports of its
    // own); the table's last transaction, and any that must load alone, never do.
    assertThat(loaded).contains("t0").doesNotContain("t2", "t10", "t19");
    assertThat(loaded).doesNotContainAnyElementsOf(numbered(20).subList(11, 20));
    assertThat(pipeline.offer("t20", false)).isFalse();
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
      pipeline.offer("t" + i, i == 0 || i == 10);
    }

    assertThatThrownBy(pipeline::finish).hasMessage("nft vanished");
    assertThat(loaded).contains("t0").doesNotContain("t1", "t10");
    assertThat(loaded).doesNotContainAnyElementsOf(numbered(20).subList(11, 20));
  }

  private boolean recorded(String transaction) {
    events.add("start " + transaction);
    // Long enough that a transaction started too early would overlap the one it must follow.
    var never = new CountDownLatch(1);
    awaited(never, Duration.ofMillis(20));
    events.add("end " + transaction);
    return loaded.add(transaction);
  }

  private static boolean awaited(CountDownLatch latch) {
    return awaited(latch, PATIENCE);
  }

  private static boolean awaited(CountDownLatch latch, Duration patience) {
    try {
      return latch.await(patience.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static List<String> numbered(int count) {
    var out = new ArrayList<String>();
    for (int i = 0; i < count; i++) {
      out.add("t" + i);
    }
    return out;
  }
}
