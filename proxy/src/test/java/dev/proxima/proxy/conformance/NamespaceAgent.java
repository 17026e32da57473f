package dev.proxima.proxy.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs inside one network namespace of the scratch node ({@code ip netns exec NS java ...}) for the
 * whole suite, so that a probe costs a few milliseconds instead of a JVM start. It reads one
 * command per line on stdin and answers with one line on stdout:
 *
 * <ul>
 *   <li>{@code listen tcp PORT} and {@code listen udp ADDRESS PORT}: serve there from now on (again
 *       is a no-op). Every connection or datagram gets {@code ROLE LOCAL-ADDRESS:PORT PEER-ADDRESS}
 *       back: who answered, on which address, and which source it saw.
 *   <li>{@code probe tcp|udp SOURCE DESTINATION PORT ATTEMPTS TIMEOUT-MS}: that many fresh
 *       connections (or datagrams from fresh sockets) from SOURCE, answered with the outcomes
 *       joined by {@code |}: the answer line, {@code refused}, {@code unreachable}, {@code
 *       timeout}, {@code silent} (connected, no answer) or {@code error:...}. It stops at the first
 *       attempt that got no answer, so a dropped flow costs one timeout.
 * </ul>
 *
 * UDP listeners bind one address each: the answer must leave from the address the datagram was sent
 * to, or conntrack cannot match it to the DNAT and the client never sees it.
 */
public final class NamespaceAgent {
  private final String role;
  private final Set<String> listening = new HashSet<>();

  private NamespaceAgent(String role) {
    this.role = role;
  }

  public static void main(String[] args) throws IOException {
    var agent = new NamespaceAgent(args[0]);
    var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    var out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      var words = line.trim().split("\\s+");
      try {
        out.println(agent.handle(words));
      } catch (IOException | RuntimeException failure) {
        out.println("error:" + String.valueOf(failure).replace('\n', ' '));
      }
    }
  }

  private String handle(String[] words) throws IOException {
    return switch (words[0]) {
      case "listen" ->
          words[1].equals("tcp")
              ? listenTcp(Integer.parseInt(words[2]))
              : listenUdp(words[2], Integer.parseInt(words[3]));
      case "probe" ->
          probe(
              words[1],
              words[2],
              words[3],
              Integer.parseInt(words[4]),
              Integer.parseInt(words[5]),
              Integer.parseInt(words[6]));
      default -> "error:unknown command " + words[0];
    };
  }

  private String listenTcp(int port) throws IOException {
    if (!listening.add("tcp " + port)) {
      return "ok";
    }
    var server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(port), 256);
    daemon(
        () -> {
          while (true) {
            try (var connection = server.accept()) {
              var answer =
                  role
                      + " "
                      + hostPort(connection.getLocalAddress(), connection.getLocalPort())
                      + " "
                      + connection.getInetAddress().getHostAddress()
                      + "\n";
              connection.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
              // One failed connection must not stop the listener.
            }
          }
        });
    return "ok";
  }

  private String listenUdp(String address, int port) throws IOException {
    if (!listening.add("udp " + address + " " + port)) {
      return "ok";
    }
    var socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(address), port));
    daemon(
        () -> {
          var buffer = new byte[512];
          while (true) {
            try {
              var packet = new DatagramPacket(buffer, buffer.length);
              socket.receive(packet);
              var answer =
                  (role
                          + " "
                          + hostPort(InetAddress.getByName(address), port)
                          + " "
                          + packet.getAddress().getHostAddress())
                      .getBytes(StandardCharsets.UTF_8);
              socket.send(new DatagramPacket(answer, answer.length, packet.getSocketAddress()));
            } catch (IOException ignored) {
              // Keep serving.
            }
          }
        });
    return "ok";
  }

  private static String hostPort(InetAddress address, int port) {
    var host = address.getHostAddress();
    return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
  }

  private static void daemon(Runnable body) {
    var thread = new Thread(body);
    thread.setDaemon(true);
    thread.start();
  }

  private static String probe(
      String protocol, String source, String destination, int port, int attempts, int timeoutMs) {
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < attempts; i++) {
      var outcome =
          protocol.equals("tcp")
              ? tcp(source, destination, port, timeoutMs)
              : udp(source, destination, port, timeoutMs);
      outcomes.add(outcome);
      if (!outcome.contains(" ")) {
        break;
      }
    }
    return String.join("|", outcomes);
  }

  private static String tcp(String source, String destination, int port, int timeoutMs) {
    try (var socket = new Socket()) {
      socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
      try {
        socket.connect(new InetSocketAddress(InetAddress.getByName(destination), port), timeoutMs);
      } catch (SocketTimeoutException dropped) {
        return "timeout";
      } catch (NoRouteToHostException rejected) {
        return "unreachable";
      } catch (ConnectException refused) {
        return refused.getMessage() != null && refused.getMessage().contains("timed out")
            ? "timeout"
            : "refused";
      }
      socket.setSoTimeout(Math.max(timeoutMs, 1000));
      var reader =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      try {
        var line = reader.readLine();
        return line == null ? "silent" : line.trim();
      } catch (SocketTimeoutException nothing) {
        return "silent";
      }
    } catch (IOException | RuntimeException failure) {
      return "error:" + String.valueOf(failure).replace(' ', '_');
    }
  }

  private static String udp(String source, String destination, int port, int timeoutMs) {
    try (var socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(source), 0))) {
      socket.connect(new InetSocketAddress(InetAddress.getByName(destination), port));
      socket.setSoTimeout(timeoutMs);
      var request = "probe".getBytes(StandardCharsets.UTF_8);
      socket.send(new DatagramPacket(request, request.length));
      var buffer = new byte[512];
      var answer = new DatagramPacket(buffer, buffer.length);
      try {
        socket.receive(answer);
      } catch (PortUnreachableException rejected) {
        return "refused";
      } catch (SocketTimeoutException dropped) {
        return "timeout";
      }
      return new String(buffer, 0, answer.getLength(), StandardCharsets.UTF_8).trim();
    } catch (IOException | RuntimeException failure) {
      return "error:" + String.valueOf(failure).replace(' ', '_');
    }
  }
}
