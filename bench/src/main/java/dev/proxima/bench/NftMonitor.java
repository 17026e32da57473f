package dev.proxima.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code nft monitor} in a namespace: the kernel reports each committed change, so the harness sees
 * when a rule really is in the kernel, to the millisecond and without polling the table.
 */
final class NftMonitor implements AutoCloseable {
  private record Event(long atMillis, String line) {}

  private final Process process;
  private final List<Event> events = new ArrayList<>();
  private final Thread reader;

  NftMonitor(String namespace) {
    try {
      process =
          new ProcessBuilder(Sh.in(namespace, "nft", "monitor")).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new HarnessError("cannot start nft monitor", e);
    }
    reader = new Thread(this::read, "nft-monitor");
    reader.setDaemon(true);
    reader.start();
    // nft subscribes to netlink events right after it starts; give it that moment
    JarProcess.pause(300);
  }

  private void read() {
    try (var lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        long now = System.currentTimeMillis();
        synchronized (events) {
          events.add(new Event(now, line));
          events.notifyAll();
        }
      }
    } catch (IOException closed) {
      // the monitor was stopped
    }
  }

  /** Epoch millis of the first event at or after {@code since} whose line contains all parts. */
  long awaitEvent(long since, Duration timeout, String... parts) {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    synchronized (events) {
      int seen = 0;
      while (true) {
        for (; seen < events.size(); seen++) {
          var event = events.get(seen);
          if (event.atMillis() >= since && containsAll(event.line(), parts)) {
            return event.atMillis();
          }
        }
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          throw new HarnessError(
              "nft monitor saw no event with " + List.of(parts) + " in " + timeout);
        }
        try {
          events.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new HarnessError("interrupted");
        }
      }
    }
  }

  /** Forgets what was seen, so a long run does not keep every event. */
  void clear() {
    synchronized (events) {
      events.clear();
    }
  }

  private static boolean containsAll(String line, String... parts) {
    for (var part : parts) {
      if (!line.contains(part)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    process.destroy();
  }
}
