package dev.proxima.proxy.plan;

import dev.proxima.model.ZoneSpillOverSetting;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/** How {@code explain} shows a Service port's zone spill-over on this node. */
public final class ZoneSpillLines {
  private ZoneSpillLines() {}

  /** Whether the Service has the annotation at all: only then does explain speak of it. */
  public static boolean asked(NodePlanner.PlannedPort planned) {
    return planned.port().zoneSpillOver().state() != ZoneSpillOverSetting.State.OFF;
  }

  /**
   * @return {@code active}, {@code keep} (p as the rules carry it, in thousandths over 1000; null
   *     when not active) and {@code why}
   */
  public static Map<String, Object> json(NodePlanner.PlannedPort planned) {
    var spill = planned.spill();
    var json = new LinkedHashMap<String, Object>();
    json.put("active", spill.active());
    json.put(
        "keep",
        spill.active()
            ? BigDecimal.valueOf(spill.spill().keepPerMille(), 3).stripTrailingZeros()
            : null);
    json.put("why", spill.why());
    return json;
  }

  /** p as a percentage, "37.5%". */
  public static String percent(NodePlanner.PlannedPort planned) {
    return BigDecimal.valueOf(planned.spill().spill().keepPerMille(), 1)
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }
}
