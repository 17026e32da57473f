package dev.proxima.controller.hints;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The API server's major.minor version as discovery's /version reports it, which says which
 * traffic-distribution values the cluster's kube-controller-manager hints itself (the two ship
 * together; a skewed KCM is at most one minor older, which the table in {@link SliceScope} allows
 * for by naming the release where the value became on by default).
 */
public record ServerVersion(int major, int minor) implements Comparable<ServerVersion> {
  // Managed offerings append "+" or build text to the minor ("31+"), so only leading digits count.
  private static final Pattern DIGITS = Pattern.compile("^(\\d+)");

  /** Parses /version's major and minor fields; empty when either carries no number. */
  public static Optional<ServerVersion> parse(String major, String minor) {
    var ma = leadingNumber(major);
    var mi = leadingNumber(minor);
    return ma.isPresent() && mi.isPresent()
        ? Optional.of(new ServerVersion(ma.get(), mi.get()))
        : Optional.empty();
  }

  /** Parses "1.31", "v1.31.2" or "1.31+" as given to {@code --server-version}. */
  public static Optional<ServerVersion> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    var parts = text.strip().replaceFirst("^v", "").split("\\.");
    return parts.length < 2 ? Optional.empty() : parse(parts[0], parts[1]);
  }

  private static Optional<Integer> leadingNumber(String text) {
    if (text == null) {
      return Optional.empty();
    }
    var matcher = DIGITS.matcher(text.strip());
    if (!matcher.find()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Integer.parseInt(matcher.group(1)));
    } catch (NumberFormatException tooLong) {
      return Optional.empty();
    }
  }

  public boolean atLeast(int otherMajor, int otherMinor) {
    return compareTo(new ServerVersion(otherMajor, otherMinor)) >= 0;
  }

  @Override
  public int compareTo(ServerVersion other) {
    return major != other.major
        ? Integer.compare(major, other.major)
        : Integer.compare(minor, other.minor);
  }

  @Override
  public String toString() {
    return major + "." + minor;
  }
}
