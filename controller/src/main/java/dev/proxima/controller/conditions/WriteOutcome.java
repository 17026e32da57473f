package dev.proxima.controller.conditions;

import java.util.List;
import java.util.Optional;

/**
 * What happened when the plan's slices were written, as far as the Programmed condition cares.
 *
 * @param overwritten slices Proxima stopped writing because another writer keeps reverting them
 * @param failure the error of a write that failed, when one did
 */
public record WriteOutcome(List<String> overwritten, Optional<String> failure) {
  public static final WriteOutcome WRITTEN = new WriteOutcome(List.of(), Optional.empty());

  public WriteOutcome {
    overwritten = List.copyOf(overwritten);
  }

  public static WriteOutcome failed(String error) {
    return new WriteOutcome(List.of(), Optional.of(error));
  }
}
