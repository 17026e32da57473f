package dev.proxima.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A chunked response body written from a worker thread: 64 KiB at a time, each chunk only once the
 * connection has room for it, so a body of any size holds one chunk in the heap and a client that
 * reads slowly holds up only the thread writing to it, until the idle limit ends the wait.
 */
final class ResponseBodyStream extends OutputStream {
  private static final int CHUNK = 64 * 1024;

  private final HttpServerResponse response;
  private final long waitMillis;
  private final byte[] chunk = new byte[CHUNK];
  private int size;

  /**
   * @param waitMillis how long to wait for the client to take the last chunk before giving up
   */
  ResponseBodyStream(HttpServerResponse response, long waitMillis) {
    this.response = response;
    this.waitMillis = waitMillis;
  }

  @Override
  public void write(int b) throws IOException {
    if (size == CHUNK) {
      send();
    }
    chunk[size++] = (byte) b;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    while (length > 0) {
      if (size == CHUNK) {
        send();
      }
      int n = Math.min(length, CHUNK - size);
      System.arraycopy(bytes, offset, chunk, size, n);
      size += n;
      offset += n;
      length -= n;
    }
  }

  /** Sends what is left and ends the response. */
  @Override
  public void close() throws IOException {
    send();
    response.end();
  }

  private void send() throws IOException {
    if (size == 0) {
      return;
    }
    awaitRoom();
    response.write(Buffer.buffer(size).appendBytes(chunk, 0, size));
    size = 0;
  }

  private void awaitRoom() throws IOException {
    if (response.closed()) {
      throw new IOException("the client closed the connection");
    }
    if (!response.writeQueueFull()) {
      return;
    }
    var room = new CompletableFuture<Void>();
    response.drainHandler(drained -> room.complete(null));
    response.closeHandler(
        closed -> room.completeExceptionally(new IOException("the client closed the connection")));
    // The queue may have drained before the handler was set: that drain calls nothing.
    if (!response.writeQueueFull()) {
      return;
    }
    try {
      room.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException stalled) {
      throw new IOException("the client read nothing for " + waitMillis + " ms");
    } catch (ExecutionException closed) {
      throw new IOException(closed.getCause().getMessage(), closed.getCause());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the client was slow", interrupted);
    }
  }
}
