package dev.proxima.proxy.conntrack;

import java.util.ArrayList;
import java.util.List;

/** Parses {@code conntrack -L -p udp} output; lines it does not understand are skipped. */
public final class ConntrackListing {
  private ConntrackListing() {}

  public static List<UdpFlow> parse(String output) {
    var flows = new ArrayList<UdpFlow>();
    for (var line : output.lines().toList()) {
      var fields = line.trim().split("\\s+");
      if (fields.length == 0 || !fields[0].equals("udp")) {
        continue;
      }
      String dst = null;
      String dport = null;
      String replySrc = null;
      int sources = 0;
      for (var field : fields) {
        if (field.startsWith("src=")) {
          sources++;
          if (sources == 2) {
            replySrc = field.substring(4);
          }
        } else if (field.startsWith("dst=") && dst == null) {
          dst = field.substring(4);
        } else if (field.startsWith("dport=") && dport == null) {
          dport = field.substring(6);
        }
      }
      if (dst == null || dport == null || replySrc == null) {
        continue;
      }
      try {
        flows.add(new UdpFlow(dst, Integer.parseInt(dport), replySrc));
      } catch (NumberFormatException malformed) {
        // conntrack printed something unexpected; the next reconcile sees the flow again.
      }
    }
    return flows;
  }
}
