package dev.proxima.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The two ends of the first-packet benchmark, each run as its own JVM inside a namespace: {@code
 * serve PORT} accepts and closes connections; {@code connect IP PORT N} opens N new connections one
 * after another and prints each connect time in nanoseconds. A connect is one SYN/SYN-ACK round
 * trip through the node's NAT rules for a new flow. For the restart row: {@code serve-named PORT}
 * answers each connection with the address it was reached at (which endpoint) and closes; {@code
 * watch IP PORT} opens one connection after another until its input ends, then prints how many it
 * opened, how many failed and which endpoints answered.
 */
public final class ConnectProbe {
  private ConnectProbe() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 2 && args[0].equals("serve")) {
      serve(Integer.parseInt(args[1]));
    } else if (args.length == 4 && args[0].equals("connect")) {
      connect(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else if (args.length == 2 && args[0].equals("serve-named")) {
      serveNamed(Integer.parseInt(args[1]));
    } else if (args.length == 3 && args[0].equals("watch")) {
      watch(args[1], Integer.parseInt(args[2]));
    } else {
      System.err.println("usage: serve PORT | connect IP PORT COUNT");
      System.exit(2);
    }
  }

  private static void serve(int port) throws IOException {
    try (var server = new ServerSocket()) {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress("0.0.0.0", port), 1024);
      System.out.println("listening");
      System.out.flush();
      while (true) {
        // A plain close (FIN): a reset could reach the client before its connect() returns.
        server.accept().close();
      }
    }
  }

  private static void serveNamed(int port) throws IOException {
    try (var server = new ServerSocket()) {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress("0.0.0.0", port), 1024);
      System.out.println("listening");
      System.out.flush();
      while (true) {
        try (var socket = server.accept()) {
          socket
              .getOutputStream()
              .write((socket.getLocalAddress().getHostAddress() + "\n").getBytes(US_ASCII));
        } catch (IOException clientGone) {
          // the next connection is what counts
        }
      }
    }
  }

  /** Connections one after another, 10 ms apart, until standard input ends; then a summary. */
  private static void watch(String ip, int port) throws IOException {
    var done = new java.util.concurrent.atomic.AtomicBoolean();
    var stdin = new Thread(() -> drain(done));
    stdin.setDaemon(true);
    stdin.start();
    var target = new InetSocketAddress(ip, port);
    var backends = new java.util.TreeSet<String>();
    long connections = 0;
    long failures = 0;
    String firstFailure = "-";
    System.out.println("watching");
    System.out.flush();
    while (!done.get()) {
      connections++;
      try (var socket = new Socket()) {
        socket.setSoTimeout(1000);
        socket.connect(target, 1000);
        var reader =
            new java.io.BufferedReader(
                new java.io.InputStreamReader(socket.getInputStream(), US_ASCII));
        var backend = reader.readLine();
        if (backend == null) {
          throw new IOException("closed without naming its endpoint");
        }
        backends.add(backend);
      } catch (IOException failed) {
        failures++;
        if (firstFailure.equals("-")) {
          firstFailure = failed.toString().replace(' ', '_');
        }
      }
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
    }
    System.out.println(
        "connections="
            + connections
            + " failures="
            + failures
            + " backends="
            + String.join(",", backends)
            + " firstFailure="
            + firstFailure);
  }

  private static void drain(java.util.concurrent.atomic.AtomicBoolean done) {
    try {
      while (System.in.read() >= 0) {
        // only the end matters
      }
    } catch (IOException ended) {
      // as good as the end
    }
    done.set(true);
  }

  private static void connect(String ip, int port, int count) throws IOException {
    var target = new InetSocketAddress(ip, port);
    var out = new StringBuilder();
    // The first connections warm the JIT and the ARP caches; they are not reported.
    int warmup = Math.min(200, count);
    for (int i = -warmup; i < count; i++) {
      try (var socket = new Socket()) {
        socket.setSoLinger(true, 0);
        long started = System.nanoTime();
        socket.connect(target, 2000);
        long elapsed = System.nanoTime() - started;
        if (i >= 0) {
          out.append(elapsed).append('\n');
        }
      }
    }
    System.out.print(out);
  }
}
