package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.testing.HostTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Reads back what the kernel holds, for the nft tests that compare loaded rulesets. */
final class NftTool {
  private NftTool() {}

  private static final Pattern ELEMENTS = Pattern.compile("elements = \\{([^}]*)\\}");

  /** Skips the calling test unless nft and ip are here; the test is of the {@code @RootTier}. */
  static void assumeKernelTools() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        HostTools.onPath("nft").isPresent() && HostTools.onPath("ip").isPresent(),
        "needs nft and ip");
  }

  /**
   * Loads {@code script} with nft in network namespace {@code namespace}, creating it if needed.
   */
  static void load(Path directory, String namespace, String script) throws IOException {
    if (HostTools.run(directory, "ip", "netns", "list")
        .stdout()
        .lines()
        .noneMatch(line -> line.startsWith(namespace))) {
      HostTools.run(directory, "ip", "netns", "add", namespace).assertSucceeded();
    }
    var file = Files.createTempFile(directory, "rules", ".nft");
    Files.writeString(file, script);
    HostTools.run(directory, "ip", "netns", "exec", namespace, "nft", "-f", file.toString())
        .assertSucceeded();
  }

  /**
   * The table as the kernel lists it: per chain, set or map, its rules or its elements, in sorted
   * order (the kernel does not keep element order).
   */
  static Map<String, List<String>> objects(Path directory, String namespace) {
    var listed =
        HostTools.inNamespace(
                directory, namespace, null, List.of("nft", "list", "table", "ip", "proxima"))
            .assertSucceeded()
            .stdout();
    var objects = new TreeMap<String, List<String>>();
    String current = null;
    List<String> content = new ArrayList<>();
    var text =
        ELEMENTS.matcher(listed).replaceAll(m -> "elements = " + m.group(1).replace("\n", " "));
    for (var raw : text.lines().toList()) {
      var line = raw.strip();
      if (line.matches("(chain|set|map) \\S+ \\{")) {
        current = line.substring(0, line.length() - 2);
        content = new ArrayList<>();
        objects.put(current, content);
      } else if (current != null && line.startsWith("elements = ")) {
        for (var element : line.substring("elements = ".length()).split(",")) {
          content.add(element.strip());
        }
      } else if (current != null && !line.equals("}") && !line.isEmpty()) {
        content.add(line);
      }
    }
    objects.values().forEach(Collections::sort);
    return objects;
  }
}
