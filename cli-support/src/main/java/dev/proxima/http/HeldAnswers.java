package dev.proxima.http;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts the answers of blocking routes a listener holds: each is written out whole before it is
 * sent (a scrape of the proxy at 10,000 counted Service ports is 4.5 MB), and a client that stops
 * reading keeps its answer in memory until it is sent or its connection closes. Without a bound, a
 * pod that opened many such connections could fill the heap, and with the images' {@code
 * -XX:+ExitOnOutOfMemoryError} restart the process again and again. Per client address, so one
 * client that stalls cannot take every place from the scrapers.
 */
final class HeldAnswers {
  private final int total;
  private final int perClient;
  private final Map<String, Integer> byClient = new HashMap<>();
  private int held;

  HeldAnswers(int total, int perClient) {
    this.total = total;
    this.perClient = perClient;
  }

  /** Takes a place for one more answer to {@code client}; false when none is free. */
  synchronized boolean take(String client) {
    if (held >= total || byClient.getOrDefault(client, 0) >= perClient) {
      return false;
    }
    held++;
    byClient.merge(client, 1, Integer::sum);
    return true;
  }

  /** The answer to {@code client} was sent or given up. */
  synchronized void give(String client) {
    held--;
    byClient.computeIfPresent(client, (address, count) -> count == 1 ? null : count - 1);
  }

  synchronized int held() {
    return held;
  }
}
