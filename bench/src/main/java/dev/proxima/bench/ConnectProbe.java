package dev.proxima.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The two ends of the first-packet benchmark, each run as its own JVM inside a namespace: {@code
 * serve PORT} accepts and closes connections; {@code connect IP PORT N} opens N new connections one
 * after another and prints each connect time in nanoseconds. A connect is one SYN/SYN-ACK round
 * trip through the node's NAT rules for a new flow.
 */
public final class ConnectProbe {
  private ConnectProbe() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 2 && args[0].equals("serve")) {
      serve(Integer.parseInt(args[1]));
    } else if (args.length == 4 && args[0].equals("connect")) {
      connect(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
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
