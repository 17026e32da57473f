package dev.proxima.proxy.nftables;

import java.util.Locale;
import java.util.Objects;

/** A set or map of table {@code proxima}; {@code comment} is our own fixed text, or null. */
public record NftSet(String name, Kind kind, String declaration, String comment) {
  public NftSet {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(declaration, "declaration");
  }

  public enum Kind {
    SET,
    MAP;

    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Kind of(String keyword) {
      return valueOf(keyword.toUpperCase(Locale.ROOT));
    }
  }

  public static NftSet set(String name, String declaration, String comment) {
    return new NftSet(name, Kind.SET, declaration, comment);
  }

  public static NftSet map(String name, String declaration, String comment) {
    return new NftSet(name, Kind.MAP, declaration, comment);
  }

  public boolean isMap() {
    return kind == Kind.MAP;
  }
}
