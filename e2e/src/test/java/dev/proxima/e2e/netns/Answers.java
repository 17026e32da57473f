package dev.proxima.e2e.netns;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What one client got from a series of connections to one target: which server answered each, and
 * the client address that server saw; failures are REFUSED, UNREACHABLE, TIMEOUT or ERROR. Its text
 * names client, target and counts, so an assertion on it says who reached whom.
 */
record Answers(String client, String target, List<Answer> answers) {
  static final String REFUSED = "REFUSED";
  static final String TIMEOUT = "TIMEOUT";

  /** One attempt: the answering server (or the failure) and the source address it saw. */
  record Answer(String server, String peer) {
    static Answer parse(String line) {
      var parts = line.trim().split("\\s+", 2);
      return new Answer(parts[0], parts.length > 1 ? canonical(parts[1]) : "");
    }

    boolean answered() {
      return !server.equals(REFUSED)
          && !server.equals("UNREACHABLE")
          && !server.equals(TIMEOUT)
          && !server.equals("ERROR");
    }
  }

  /** One spelling per address: socat prints IPv6 addresses with every zero written out. */
  static String canonical(String address) {
    if (!address.contains(":")) {
      return address;
    }
    try {
      return InetAddress.getByName(address).getHostAddress();
    } catch (UnknownHostException notAnAddress) {
      return address;
    }
  }

  static Answers parse(String client, String target, String output) {
    return new Answers(
        client, target, output.lines().filter(l -> !l.isBlank()).map(Answer::parse).toList());
  }

  /** How often each server (or failure) answered. */
  Map<String, Long> counts() {
    return answers.stream()
        .collect(Collectors.groupingBy(Answer::server, TreeMap::new, Collectors.counting()));
  }

  Set<String> servers() {
    return answers.stream().map(Answer::server).collect(Collectors.toCollection(TreeSet::new));
  }

  Set<String> peersSeen() {
    return answers.stream()
        .filter(Answer::answered)
        .map(Answer::peer)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  boolean allAnswered() {
    return !answers.isEmpty() && answers.stream().allMatch(Answer::answered);
  }

  static String describe(List<Answers> all) {
    return all.stream().map(Answers::toString).collect(Collectors.joining("\n  ", "\n  ", ""));
  }

  @Override
  public String toString() {
    return client
        + " -> "
        + target
        + ": "
        + counts()
        + " (client addresses seen: "
        + peersSeen()
        + ")";
  }
}
