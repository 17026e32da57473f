package dev.proxima.proxy.nftables;

import java.util.Objects;

/**
 * One element of a set or map: a key, a value in a map, a comment optionally. The table holds
 * hundreds of thousands, so key and value are one string and the key's length (a record of two
 * strings cost 64 bytes more), and a port's elements share its comment string.
 */
public final class NftElement {
  private final String keyAndValue;
  private final int keyLength;
  private final String comment;

  /** {@code value} is null in a set; {@code comment} is sanitised ({@link NftText#comment}). */
  public NftElement(String key, String value, String comment) {
    Objects.requireNonNull(key, "key");
    if (value != null && value.isEmpty()) {
      throw new IllegalArgumentException("an element's value cannot be empty");
    }
    this.keyAndValue = value == null ? key : key.concat(value);
    this.keyLength = key.length();
    this.comment = comment == null ? null : NftText.comment(comment);
  }

  public static NftElement of(String key) {
    return new NftElement(key, null, null);
  }

  public String key() {
    return hasValue() ? keyAndValue.substring(0, keyLength) : keyAndValue;
  }

  public String value() {
    return hasValue() ? keyAndValue.substring(keyLength) : null;
  }

  public String comment() {
    return comment;
  }

  public boolean hasValue() {
    return keyLength < keyAndValue.length();
  }

  public void appendKey(StringBuilder out) {
    out.append(keyAndValue, 0, keyLength);
  }

  public void appendValue(StringBuilder out) {
    out.append(keyAndValue, keyLength, keyAndValue.length());
  }

  public int keyLength() {
    return keyLength;
  }

  public int valueLength() {
    return keyAndValue.length() - keyLength;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NftElement element
        && keyLength == element.keyLength
        && keyAndValue.equals(element.keyAndValue)
        && Objects.equals(comment, element.comment);
  }

  @Override
  public int hashCode() {
    return (keyAndValue.hashCode() * 31 + keyLength) * 31 + Objects.hashCode(comment);
  }

  @Override
  public String toString() {
    return "NftElement[key=" + key() + ", value=" + value() + ", comment=" + comment + "]";
  }
}
