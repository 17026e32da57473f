package dev.proxima.proxy.dataplane;

final class Lines {
  private Lines() {}

  /** Newline-terminated lines, plus an unterminated last one. */
  static int count(String text) {
    int lines = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lines++;
      }
    }
    return text.isEmpty() || text.charAt(text.length() - 1) == '\n' ? lines : lines + 1;
  }
}
