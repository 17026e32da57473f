package dev.proxima.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A complete answer: handlers build it whole, so nothing waits on the client while it is built. A
 * large body may instead be {@link #streamed}: written by the handler's code straight into the
 * bytes that are sent, with no intermediate objects per line. It is written out whole before
 * anything is sent, so no thread ever waits on a client.
 *
 * @param stream writes the body when it is streamed, else null and the body is {@code body}
 */
public record ProbeResponse(
    int status, Map<String, String> headers, byte[] body, BodyWriter stream) {
  public ProbeResponse {
    headers = Map.copyOf(headers);
  }

  public ProbeResponse(int status, Map<String, String> headers, byte[] body) {
    this(status, headers, body, null);
  }

  /** Writes a streamed body. */
  @FunctionalInterface
  public interface BodyWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * A body written straight into the response's bytes: off the event loop for a {@link
   * ProbeHandler#blocking blocking} handler, on it for any other.
   */
  public static ProbeResponse streamed(int status, Map<String, String> headers, BodyWriter body) {
    return new ProbeResponse(status, headers, new byte[0], body);
  }

  /** A UTF-8 body with the given content type and any further headers. */
  public static ProbeResponse of(
      int status, String contentType, String body, Map<String, String> extraHeaders) {
    var headers = new LinkedHashMap<String, String>();
    headers.put("Content-Type", contentType);
    headers.putAll(extraHeaders);
    return new ProbeResponse(status, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  public static ProbeResponse text(int status, String body) {
    return of(status, "text/plain; charset=utf-8", body, Map.of());
  }
}
