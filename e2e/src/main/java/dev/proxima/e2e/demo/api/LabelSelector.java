package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A label selector in the syntax kubectl sends ({@code app=web,tier!=db,env in (a,b),!legacy}),
 * matched against an object's labels. The mock understands only some of it and silently ignores the
 * rest (an {@code in} set selected every object), so list requests are filtered here, with every
 * form a real API server accepts.
 */
public final class LabelSelector {
  private enum Operator {
    EQUALS,
    NOT_EQUALS,
    IN,
    NOT_IN,
    EXISTS,
    DOES_NOT_EXIST
  }

  private record Requirement(String key, Operator operator, Set<String> values) {
    boolean matches(JsonNode labels) {
      var value = labels.get(key);
      boolean present = value != null && value.isTextual();
      var text = present ? value.asText() : null;
      return switch (operator) {
        case EQUALS, IN -> present && values.contains(text);
        case NOT_EQUALS, NOT_IN -> !present || !values.contains(text);
        case EXISTS -> present;
        case DOES_NOT_EXIST -> !present;
      };
    }
  }

  private final List<Requirement> requirements;

  private LabelSelector(List<Requirement> requirements) {
    this.requirements = List.copyOf(requirements);
  }

  /**
   * Parses the URL-encoded value of a {@code labelSelector} query parameter.
   *
   * @throws IllegalArgumentException naming the term that is not a label selector
   */
  public static LabelSelector parse(String encoded) {
    var text = URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    var requirements = new ArrayList<Requirement>();
    for (var term : terms(text)) {
      requirements.add(requirement(term.strip()));
    }
    return new LabelSelector(requirements);
  }

  /** Whether the selector uses a set-based form ({@code in}, {@code notin}, {@code !key}). */
  public boolean setBased() {
    return requirements.stream()
        .anyMatch(
            r ->
                r.operator() == Operator.IN
                    || r.operator() == Operator.NOT_IN
                    || r.operator() == Operator.DOES_NOT_EXIST);
  }

  /** Whether {@code object}'s labels satisfy every requirement. */
  public boolean matches(JsonNode object) {
    var labels = object.path("metadata").path("labels");
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  /** The terms between top-level commas (commas inside a set's parentheses do not split). */
  private static List<String> terms(String text) {
    var terms = new ArrayList<String>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        terms.add(text.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(text.substring(start));
    return terms.stream().filter(term -> !term.isBlank()).toList();
  }

  private static Requirement requirement(String term) {
    if (term.startsWith("!")) {
      return new Requirement(
          key(term.substring(1).strip(), term), Operator.DOES_NOT_EXIST, Set.of());
    }
    int open = term.indexOf('(');
    if (open > 0) {
      if (!term.endsWith(")")) {
        throw invalid(term);
      }
      var head = term.substring(0, open).strip().split("\\s+");
      if (head.length != 2) {
        throw invalid(term);
      }
      var operator =
          switch (head[1]) {
            case "in" -> Operator.IN;
            case "notin" -> Operator.NOT_IN;
            default -> throw invalid(term);
          };
      var values = new java.util.LinkedHashSet<String>();
      for (var value : term.substring(open + 1, term.length() - 1).split(",")) {
        if (!value.isBlank()) {
          values.add(value.strip());
        }
      }
      return new Requirement(key(head[0], term), operator, Set.copyOf(values));
    }
    int notEqual = term.indexOf("!=");
    if (notEqual > 0) {
      return new Requirement(
          key(term.substring(0, notEqual).strip(), term),
          Operator.NOT_EQUALS,
          Set.of(term.substring(notEqual + 2).strip()));
    }
    int equal = term.indexOf('=');
    if (equal > 0) {
      var value = term.substring(equal + 1);
      value = value.startsWith("=") ? value.substring(1) : value;
      return new Requirement(
          key(term.substring(0, equal).strip(), term), Operator.EQUALS, Set.of(value.strip()));
    }
    return new Requirement(key(term, term), Operator.EXISTS, Set.of());
  }

  private static String key(String key, String term) {
    if (key.isEmpty()
        || key.chars().anyMatch(c -> Character.isWhitespace(c) || "=!(),".indexOf(c) >= 0)) {
      throw invalid(term);
    }
    return key;
  }

  private static IllegalArgumentException invalid(String term) {
    return new IllegalArgumentException(
        "unable to parse requirement: \""
            + term
            + "\" is not a label selector term (key, !key, key=value, key!=value, key in (a,b),"
            + " key notin (a,b))");
  }
}
