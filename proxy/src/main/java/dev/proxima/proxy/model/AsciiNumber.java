package dev.proxima.proxy.model;

/**
 * Reads a number written in ASCII digits only: Java's own parsers also accept other scripts' digits
 * and signs, which no API field the proxy reads may carry.
 */
final class AsciiNumber {
  private AsciiNumber() {}

  /**
   * The non-negative number in {@code text} from {@code from} to {@code to}, or -1 when that range
   * is empty, longer than {@code maxDigits} or holds anything but ASCII digits of {@code radix}.
   */
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
