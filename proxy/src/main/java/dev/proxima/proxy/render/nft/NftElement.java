package dev.proxima.proxy.render.nft;

import java.util.Objects;

/**
 * One element of a set or map: its key, and for a map its value; a comment optionally. The
 * assembler diffs and claims elements by {@link #key()}, so nothing reads a key back out of text.
 *
 * <p>The table holds hundreds of thousands of these at 10,000 Services, so the element is this one
 * small record of strings, nothing more; a Service port's elements share its comment string.
 *
 * @param key what identifies the element, e.g. {@code 10.96.0.10 . tcp . 80}
 * @param value a map element's value (a verdict, {@code address . port}); null in a set
 * @param comment a comment, sanitised on the way in ({@link NftText#comment}); null for none
 */
record NftElement(String key, String value, String comment) {
  NftElement {
    Objects.requireNonNull(key, "key");
    if (comment != null) {
      comment = NftText.comment(comment);
    }
  }

  /** A set element: a key alone. */
  static NftElement of(String key) {
    return new NftElement(key, null, null);
  }
}
