package dev.proxima.proxy.decode;

import java.util.function.Consumer;

/** Applies the cache's trim to a freshly decoded object. */
final class Trim {
  private Trim() {}

  /**
   * An object the trim cannot handle (a list with a null element, say) is kept as far as the trim
   * got, as before: decoding never fails because of the trim, and the catalog validates every field
   * it reads anyway.
   */
  static <T> void quietly(T decoded, Consumer<T> trim) {
    try {
      trim.accept(decoded);
    } catch (RuntimeException partial) {
      // Kept as far as the trim got.
    }
  }
}
