package dev.proxima.proxy.render;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** base32 (RFC 4648, no padding) of a key's SHA-256, as kube-proxy names its chains. */
public final class NameHash {
  private NameHash() {}

  // MessageDigest is not thread-safe and costly to look up; one per thread.
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is always available", e);
            }
          });

  /** All 52 characters of base32(sha256(key)), upper case; callers cut and case it. */
  public static String of(String key) {
    return base32(SHA256.get().digest(key.getBytes(StandardCharsets.UTF_8)));
  }

  static String base32(byte[] data) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    StringBuilder out = new StringBuilder();
    int buffer = 0;
    int bits = 0;
    for (byte b : data) {
      buffer = (buffer << 8) | (b & 0xff);
      bits += 8;
      while (bits >= 5) {
        out.append(alphabet.charAt((buffer >>> (bits - 5)) & 31));
        bits -= 5;
      }
    }
    if (bits > 0) {
      out.append(alphabet.charAt((buffer << (5 - bits)) & 31));
    }
    return out.toString();
  }
}
