package dev.proxima.proxy.model;

import java.util.List;

/**
 * A Service port's zone spill-over on this node, as the rules carry it: new connections stay on the
 * endpoints the zone hints chose with probability {@code keepPerMille}/1000 and spread over {@code
 * spread} otherwise.
 *
 * @param keepPerMille the in-zone fraction in thousandths, so that small wobbles of the demand do
 *     not change the rules; {@link #WHOLE} keeps everything in-zone, as without spill-over
 * @param spread every ready endpoint, the list the selection would use without hints; empty when
 *     nothing spills
 */
public record ZoneSpill(int keepPerMille, List<Endpoint> spread) {
  public static final int WHOLE = 1000;

  /** Routing exactly as without spill-over. */
  public static final ZoneSpill NONE = new ZoneSpill(WHOLE, List.of());

  public ZoneSpill {
    if (keepPerMille < 0 || keepPerMille > WHOLE) {
      throw new IllegalArgumentException("keepPerMille out of 0..1000: " + keepPerMille);
    }
    spread = List.copyOf(spread);
  }

  /** Whether some new connections leave the zone's endpoints. */
  public boolean spills() {
    return keepPerMille < WHOLE && !spread.isEmpty();
  }
}
