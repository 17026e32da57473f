package dev.proxima.controller.reconcile;

import dev.proxima.model.ZoneDemand;
import java.util.SortedMap;

/**
 * Publishes the zones' demand for the proxies, writing only when the published shares change: a
 * Node event that leaves every share where it was, to the published precision, writes nothing.
 */
public final class ZoneDemandPublisher {
  /** Stores the demand object; an adapter does the I/O. */
  public interface Writer {
    /**
     * Makes the object hold exactly {@code data}, creating it when missing.
     *
     * @throws SliceWriter.WriteConflictException when it changed under the write; retried
     * @throws SliceWriter.NotLeaderException when this replica may not write
     */
    void write(SortedMap<String, String> data);
  }

  private final Writer writer;
  // What this replica last stored; null until its first write, which therefore always happens.
  private ZoneDemand published;

  public ZoneDemandPublisher(Writer writer) {
    this.writer = writer;
  }

  /**
   * Writes {@code demand} unless it is what was last written.
   *
   * @return whether it wrote
   */
  public synchronized boolean publish(ZoneDemand demand) {
    if (demand.equals(published)) {
      return false;
    }
    published = null;
    writer.write(demand.data());
    published = demand;
    return true;
  }
}
