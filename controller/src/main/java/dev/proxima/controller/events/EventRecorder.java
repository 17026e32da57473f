package dev.proxima.controller.events;

/** Records Events; the live implementation writes them to the API server, tests collect them. */
public interface EventRecorder {
  void record(PlannedEvent event);
}
