package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A field selector ({@code involvedObject.name=web,type!=Normal}) matched against an object's JSON.
 * The mock ignores most of them; kubectl describe relies on them to show only the events of the
 * object it describes, and on {@code metadata.name} to wait for a deletion.
 */
public final class FieldSelector {
  private record Requirement(String path, String value, boolean equal) {}

  private final List<Requirement> requirements;

  private FieldSelector(List<Requirement> requirements) {
    this.requirements = requirements;
  }

  /** Parses the URL-encoded value of a {@code fieldSelector} query parameter. */
  public static FieldSelector parse(String encoded) {
    var requirements = new ArrayList<Requirement>();
    for (var term : URLDecoder.decode(encoded, StandardCharsets.UTF_8).split(",")) {
      if (term.isBlank()) {
        continue;
      }
      int notEqual = term.indexOf("!=");
      if (notEqual > 0) {
        requirements.add(
            new Requirement(term.substring(0, notEqual), term.substring(notEqual + 2), false));
        continue;
      }
      int equal = term.indexOf('=');
      if (equal <= 0) {
        throw new IllegalArgumentException("invalid field selector term: " + term);
      }
      var value = term.substring(equal + 1);
      requirements.add(
          new Requirement(
              term.substring(0, equal), value.startsWith("=") ? value.substring(1) : value, true));
    }
    return new FieldSelector(requirements);
  }

  /** Whether {@code object} has every selected field as asked (an absent field is ""). */
  public boolean matches(JsonNode object) {
    for (var requirement : requirements) {
      var node = object;
      for (var part : requirement.path().split("\\.")) {
        node = node.path(part);
      }
      var actual = node.isValueNode() ? node.asText() : "";
      if (actual.equals(requirement.value()) != requirement.equal()) {
        return false;
      }
    }
    return true;
  }
}
