package dev.proxima.proxy.render;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Pod traffic told by the interface it arrives on (kube-proxy's BridgeInterface and
 * InterfaceNamePrefix detect-local modes).
 *
 * @param prefix whether {@code name} is a prefix of the pods' interfaces rather than a bridge
 */
public record PodInterface(String name, boolean prefix) {
  /**
   * Linux interface names: at most 15 bytes, no whitespace or slash; quotes and the wildcard
   * characters of nft ({@code *}) and iptables ({@code +}) would change the rule's meaning.
   */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:@-]{1,15}");

  public PodInterface {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "not an interface name%s (1-15 of letters, digits, _ . : @ -): \"%s\""
              .formatted(prefix ? " prefix" : "", name));
    }
  }

  public static PodInterface bridge(String name) {
    return new PodInterface(name, false);
  }

  public static PodInterface namePrefix(String prefix) {
    return new PodInterface(prefix, true);
  }
}
