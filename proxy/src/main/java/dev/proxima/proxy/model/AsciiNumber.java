package dev.proxima.proxy.model;

/**
 * Reads a number written in ASCII digits only: Java's own parsers also accept other scripts' digits
 * and signs, which no API field the proxy reads may carry.
 */
final class AsciiNumber {
  private AsciiNumber() {}

  /** -1 when the range is empty, longer than maxDigits or holds anything but ASCII digits. */
  static int parse(String text, int from, int to, int radix, int maxDigits) {
    if (from == to || to - from > maxDigits) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      int digit = c < 0x80 ? Character.digit(c, radix) : -1;
      if (digit < 0) {
        return -1;
      }
      value = value * radix + digit;
    }
    return value;
  }
}
