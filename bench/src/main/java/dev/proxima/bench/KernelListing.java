package dev.proxima.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An {@code nft list table} listing as what it programs, for comparing a long-running proxy's table
 * with a fresh render of the same objects: its sets, maps and chains by name, each as the sorted
 * list of its statements and elements. Order does not count (the kernel lists set elements in its
 * own order, which depends on the history of adds and deletes), nor do empty regular chains, which
 * partial syncs leave for a later full sync to delete (as the e2e suite's comparison).
 */
final class KernelListing {
  private KernelListing() {}

  private static final java.util.regex.Pattern GENERATION =
      java.util.regex.Pattern.compile("(?<=[a-z0-9])-g\\d+(?![\\w-])");

  static Map<String, List<String>> programmed(String listing) {
    var blocks = new TreeMap<String, List<String>>();
    String header = null;
    var body = new ArrayList<String>();
    for (var listed : listing.split("\n")) {
      // A full sync names its objects for a generation ({@code service-ips-g1}); a render does not.
      var line = GENERATION.matcher(listed).replaceAll("");
      if (header == null) {
        if (line.startsWith("\t") && !line.startsWith("\t\t") && line.endsWith("{")) {
          header = line.strip();
          body = new ArrayList<>();
        }
      } else if (line.equals("\t}")) {
        boolean emptyChain = header.startsWith("chain ") && body.isEmpty();
        if (!emptyChain) {
          Collections.sort(body);
          blocks.put(header, body);
        }
        header = null;
      } else {
        for (var part : line.split(",")) {
          var token = part.strip();
          if (token.startsWith("elements = {")) {
            token = token.substring("elements = {".length()).strip();
          }
          if (token.endsWith("}") && !token.contains("{")) {
            token = token.substring(0, token.length() - 1).strip();
          }
          if (!token.isEmpty()) {
            body.add(token);
          }
        }
      }
    }
    return blocks;
  }

  /** What differs, in a few words; empty when the two program the same. */
  static String difference(Map<String, List<String>> kernel, Map<String, List<String>> fresh) {
    var onlyKernel = new ArrayList<String>();
    var onlyFresh = new ArrayList<String>();
    var differing = new ArrayList<String>();
    for (var name : kernel.keySet()) {
      if (!fresh.containsKey(name)) {
        onlyKernel.add(name);
      } else if (!kernel.get(name).equals(fresh.get(name))) {
        var extra = new ArrayList<>(kernel.get(name));
        extra.removeAll(fresh.get(name));
        var missing = new ArrayList<>(fresh.get(name));
        missing.removeAll(kernel.get(name));
        differing.add(
            name
                + " (kernel has "
                + extra.size()
                + " more, e.g. "
                + first(extra)
                + "; lacks "
                + missing.size()
                + ", e.g. "
                + first(missing)
                + ")");
      }
    }
    for (var name : fresh.keySet()) {
      if (!kernel.containsKey(name)) {
        onlyFresh.add(name);
      }
    }
    if (onlyKernel.isEmpty() && onlyFresh.isEmpty() && differing.isEmpty()) {
      return "";
    }
    return String.format(
        "%d blocks only in the kernel %s; %d only in the fresh render %s; %d differ %s",
        onlyKernel.size(),
        first(onlyKernel),
        onlyFresh.size(),
        first(onlyFresh),
        differing.size(),
        differing.subList(0, Math.min(3, differing.size())));
  }

  private static String first(List<String> items) {
    return items.isEmpty() ? "-" : items.subList(0, Math.min(3, items.size())).toString();
  }
}
