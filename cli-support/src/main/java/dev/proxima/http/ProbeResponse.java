package dev.proxima.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** A complete answer: handlers build it whole, so nothing waits on the client while it is built. */
public record ProbeResponse(int status, Map<String, String> headers, byte[] body) {
  public ProbeResponse {
    headers = Map.copyOf(headers);
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
