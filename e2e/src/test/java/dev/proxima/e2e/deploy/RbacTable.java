package dev.proxima.e2e.deploy;

import dev.proxima.e2e.deploy.RequiredPermissions.Permission;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads the permissions the docs state, so that tests can hold them against the roles: the RBAC
 * table of deploy/README.md and the passages of a page that tell which Lease verbs to check.
 */
final class RbacTable {
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");
  private static final Pattern FENCED = Pattern.compile("(?ms)^```.*?^```");
  private static final Set<String> VERBS =
      Set.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");
  private static final Pattern WORD = Pattern.compile("[a-z]+");

  private RbacTable() {}

  /**
   * The rows of the table after the {@code **RBAC**} paragraph, by component. A row reads: {@code |
   * component | API | verbs | where |}, where API is backticked resources, optionally a group (a
   * name with a dot; none means core) and {@code in `namespace`} (a Role's); and verbs are
   * comma-separated, with {@code ; ... on `name`} for verbs limited to one object.
   */
  static Map<String, List<Permission>> read(Path readme) throws IOException {
    var rows = new TreeMap<String, List<Permission>>();
    var inTable = false;
    for (var line : Files.readString(readme).split("\n")) {
      if (line.startsWith("**RBAC**")) {
        inTable = true;
        continue;
      }
      if (!inTable) {
        continue;
      }
      if (!line.startsWith("|")) {
        if (!rows.isEmpty()) {
          break;
        }
        continue;
      }
      var cells = line.split("\\|");
      var component = cells[1].trim();
      if (component.equals("component") || component.startsWith("---")) {
        continue;
      }
      rows.computeIfAbsent(component, c -> new ArrayList<>())
          .addAll(permissions(cells[2].trim(), cells[3].trim()));
    }
    if (rows.isEmpty()) {
      throw new AssertionError(readme + " has no table after its **RBAC** paragraph");
    }
    return rows;
  }

  private static List<Permission> permissions(String api, String verbsCell) {
    String namespace = null;
    var inAt = api.indexOf(" in `");
    var apiPart = api;
    if (inAt >= 0) {
      var where = CODE.matcher(api.substring(inAt));
      where.find();
      namespace = where.group(1);
      apiPart = api.substring(0, inAt);
    }
    var group = "";
    var resources = new ArrayList<String>();
    var tokens = CODE.matcher(apiPart);
    while (tokens.find()) {
      var token = tokens.group(1);
      if (token.contains(".")) {
        group = token;
      } else {
        resources.add(token);
      }
    }
    var permissions = new ArrayList<Permission>();
    for (var part : verbsCell.split(";")) {
      String name = null;
      var verbs = part;
      var onAt = part.indexOf(" on `");
      if (onAt >= 0) {
        var object = CODE.matcher(part.substring(onAt));
        object.find();
        name = object.group(1);
        verbs = part.substring(0, onAt);
      }
      for (var verb : verbs.split(",")) {
        for (var resource : resources) {
          permissions.add(new Permission(namespace, group, resource, verb.trim(), name));
        }
      }
    }
    return permissions;
  }

  /**
   * The table under a page's {@code ## Permissions} heading, as {@code "group resource verb"}
   * (group {@code ""} for core): {@code | `group` | resources | verbs | why |}, resources and verbs
   * comma-separated, a parenthesis after a resource saying where.
   */
  static Set<String> permissionsSection(Path page) throws IOException {
    var grants = new TreeSet<String>();
    var inSection = false;
    for (var line : Files.readString(page).split("\n")) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Permissions");
        continue;
      }
      if (!inSection || !line.startsWith("| `")) {
        continue;
      }
      var cells = line.split("\\|");
      var group = cells[1].trim().replace("`", "").replace("\"\"", "");
      for (var resource : cells[2].replaceAll("\\(.*?\\)", "").split(",")) {
        for (var verb : cells[3].split(",")) {
          grants.add(
              (group.isEmpty() ? "core" : group) + " " + resource.trim() + " " + verb.trim());
        }
      }
    }
    if (grants.isEmpty()) {
      throw new AssertionError(page + " has no table under ## Permissions");
    }
    return grants;
  }

  /**
   * The passages (list items or paragraphs, outside code blocks) that mention Leases together with
   * an RBAC verb, each with the verbs it names.
   */
  static Map<String, Set<String>> leaseVerbMentions(Path page) throws IOException {
    var text = FENCED.matcher(Files.readString(page)).replaceAll("");
    var mentions = new LinkedHashMap<String, Set<String>>();
    for (var passage : text.split("\n(?=\\s*- )|\n\\s*\n")) {
      if (!passage.contains("Lease")) {
        continue;
      }
      var verbs = new TreeSet<String>();
      var words = WORD.matcher(CODE.matcher(passage).replaceAll(" "));
      while (words.find()) {
        if (VERBS.contains(words.group())) {
          verbs.add(words.group());
        }
      }
      if (!verbs.isEmpty()) {
        mentions.put(passage.trim().replaceAll("\\s+", " "), verbs);
      }
    }
    return mentions;
  }
}
