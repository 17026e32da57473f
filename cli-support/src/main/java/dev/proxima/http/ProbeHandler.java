package dev.proxima.http;

/**
 * Answers one request. It runs on the listeners' event loop, so it must only read state that is
 * already in memory (a health snapshot, a metrics registry), never wait for I/O or a long lock.
 */
@FunctionalInterface
public interface ProbeHandler {
  ProbeResponse handle(ProbeRequest request);
}
