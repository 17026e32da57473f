package dev.proxima.proxy.model;

import java.util.regex.Pattern;

/**
 * Validates IP address and CIDR literals without ever touching DNS: {@code InetAddress.getByName}
 * resolves anything that is not a literal, which a proxy must never do on input from the API.
 */
public final class IpLiteral {
  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]+");

  private IpLiteral() {}

  static IpFamily familyOf(String address) {
    if (address == null || address.isEmpty()) {
      return null;
    }
    if (IPV4.matcher(address).matches()) {
      return IpFamily.IPV4;
    }
    return isIpv6(address) ? IpFamily.IPV6 : null;
  }

  /** The family of a CIDR such as {@code 10.0.0.0/8}, or null when it is not one. */
  public static IpFamily familyOfCidr(String cidr) {
    if (cidr == null) {
      return null;
    }
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      return null;
    }
    var family = familyOf(cidr.substring(0, slash));
    if (family == null) {
      return null;
    }
    int length;
    try {
      length = Integer.parseInt(cidr.substring(slash + 1));
    } catch (NumberFormatException notANumber) {
      return null;
    }
    int max = family == IpFamily.IPV4 ? 32 : 128;
    return length >= 0 && length <= max ? family : null;
  }

  private static boolean isIpv6(String address) {
    if (!IPV6_CHARS.matcher(address).matches() || address.indexOf(':') < 0) {
      return false;
    }
    var doubleColon = address.indexOf("::");
    if (doubleColon >= 0 && address.indexOf("::", doubleColon + 1) >= 0) {
      return false;
    }
    var groups = address.split(":", -1);
    int count = 0;
    for (int i = 0; i < groups.length; i++) {
      var group = groups[i];
      if (group.isEmpty()) {
        continue;
      }
      if (i == groups.length - 1 && group.indexOf('.') >= 0) {
        if (!IPV4.matcher(group).matches()) {
          return false;
        }
        count += 2;
        continue;
      }
      if (group.length() > 4 || group.indexOf('.') >= 0) {
        return false;
      }
      count++;
    }
    return doubleColon >= 0 ? count < 8 : count == 8;
  }
}
