package dev.proxima.bench;

/** Progress lines on stderr, so a long run shows where it is; the table goes to stdout. */
final class Progress {
  private static final long STARTED = System.currentTimeMillis();

  private Progress() {}

  static void log(String message) {
    System.err.printf(
        "bench [%6.1f s] %s%n", (System.currentTimeMillis() - STARTED) / 1000.0, message);
  }
}
