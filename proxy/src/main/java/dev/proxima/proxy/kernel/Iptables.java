package dev.proxima.proxy.kernel;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.iptables.IptablesChains;
import dev.proxima.proxy.render.iptables.IptablesCleanup;
import dev.proxima.proxy.render.iptables.IptablesListing;
import dev.proxima.proxy.render.iptables.JumpRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Runs one family's iptables tools of one backend; failures come back as values. */
public final class Iptables implements IptablesKernel {
  /** Every table Proxima writes to; mangle holds only the canary. */
  public static final List<String> TABLES = List.of("filter", "nat", "mangle");

  static final int NFT_BUFFER_LINES = 6000;

  private static final Pattern FAILED_LINE = Pattern.compile("line:? (\\d+)");

  /** Also for counter reads: scrapes never wait for them, and iptables-save -c lists everything. */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** What runs before each tool, e.g. {@code ip netns exec x}; empty on a node. */
  private final List<String> prefix;

  private final IptablesBackend backend;
  // Resolved once: the canary and jump checks run these every sync period.
  private final String iptables;
  private final String restore;
  private final String save;

  public Iptables(List<String> prefix, IpFamily family, IptablesBackend backend) {
    this.prefix = List.copyOf(prefix);
    this.backend = backend;
    this.iptables = tool(backend, family, "");
    this.restore = tool(backend, family, "-restore");
    this.save = tool(backend, family, "-save");
  }

  /** With {@code --noflush}: only the chains the buffer names are rewritten. */
  @Override
  public Nft.Result apply(String buffer) {
    var outcome = run(restore, List.of("--noflush", "-w", "5"), buffer);
    if (outcome.succeeded()) {
      return new Nft.Result(true, outcome.output(), null);
    }
    return new Nft.Result(false, outcome.output(), failedLine(outcome.output(), buffer));
  }

  @Override
  public Map<String, Set<String>> proximaChains() {
    return IptablesCleanup.chains(save());
  }

  @Override
  public IptablesListing listing() {
    return IptablesListing.fromSave(save());
  }

  /** One {@code iptables-save -t TABLE} per table Proxima uses; tables that fail are left out. */
  public Map<String, String> save() {
    Map<String, String> result = new LinkedHashMap<>();
    for (String table : TABLES) {
      var outcome = run(save, List.of("-t", table), "");
      if (outcome.succeeded()) {
        result.put(table, outcome.output());
      }
    }
    return result;
  }

  /** One call for every table: the counters sit in nat and filter. */
  @Override
  public Optional<String> savedCounters() {
    var outcome = run(save, List.of("-c"), "");
    return outcome.succeeded() ? Optional.of(outcome.output()) : Optional.empty();
  }

  @Override
  public boolean has(JumpRule jump) {
    return run(iptables, withWait(jump.checkArgs()), "").succeeded();
  }

  @Override
  public HostCommand.Outcome insert(JumpRule jump) {
    return run(iptables, withWait(jump.insertArgs()), "");
  }

  /** About 500 Services of two endpoints per buffer on the nft backend, one buffer on legacy. */
  @Override
  public int fullSyncLines() {
    return backend == IptablesBackend.NFT ? NFT_BUFFER_LINES : Integer.MAX_VALUE;
  }

  @Override
  public boolean hasCanary(String table) {
    return run(iptables, List.of("-w", "5", "-t", table, "-S", IptablesChains.CANARY), "")
        .succeeded();
  }

  private static List<String> withWait(List<String> args) {
    var full = new ArrayList<String>(List.of("-w", "5"));
    full.addAll(args);
    return full;
  }

  private static String tool(IptablesBackend backend, IpFamily family, String suffix) {
    String name = backend.tool(family, suffix);
    return HostCommand.find(name).orElse(name);
  }

  private HostCommand.Outcome run(String tool, List<String> args, String stdin) {
    var command = new ArrayList<>(prefix);
    command.add(tool);
    command.addAll(args);
    return HostCommand.run(command, stdin, TIMEOUT);
  }

  /** iptables-restore names the failing line ("line 7 failed", "Error occurred at line: 7"). */
  static String failedLine(String output, String buffer) {
    var match = FAILED_LINE.matcher(output);
    return match.find() ? Nft.scriptLine(buffer, match.group(1)) : null;
  }
}
