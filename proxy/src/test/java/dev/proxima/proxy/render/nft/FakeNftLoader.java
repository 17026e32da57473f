package dev.proxima.proxy.render.nft;

import dev.proxima.proxy.kernel.Nft;
import dev.proxima.proxy.kernel.RuleLoader;
import dev.proxima.proxy.testing.FakeNft;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link FakeNft} as nft: loads, lists the marker set, tells whether a rule refers to it, and
 * counts whole-table read-backs.
 */
final class FakeNftLoader implements RuleLoader {
  final FakeNft nft = new FakeNft();
  final List<String> loaded = new ArrayList<>();
  int readBacks;

  /** How often the marker set was listed; read by other threads. */
  final java.util.concurrent.atomic.AtomicInteger markerReads =
      new java.util.concurrent.atomic.AtomicInteger();

  /** How often it was asked whether a rule refers to the marker set; read by other threads. */
  final java.util.concurrent.atomic.AtomicInteger referenceChecks =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * One transaction at a time, as the kernel commits them: a cold rebuild loads from two threads.
   */
  @Override
  public synchronized Nft.Result apply(String script) {
    try {
      nft.apply(script);
      loaded.add(script);
      return new Nft.Result(true, "", null);
    } catch (RuntimeException e) {
      return new Nft.Result(false, e.getMessage(), null);
    }
  }

  @Override
  public Optional<String> declarations(String family, String table) {
    readBacks++;
    var kernelTable = nft.kernelTable();
    if (kernelTable == null) {
      return Optional.empty();
    }
    var out = new StringBuilder("table ip proxima {\n");
    kernelTable
        .chains()
        .forEach(
            (name, kind) -> {
              out.append("\tchain ").append(name).append(" {\n");
              if (kind.base()) {
                out.append("\t\ttype filter hook input priority filter; policy accept;\n");
              }
              if (!kind.empty()) {
                out.append("\t\tcounter\n");
              }
              out.append("\t}\n");
            });
    kernelTable
        .sets()
        .forEach(
            (name, kind) ->
                out.append("\t").append(kind).append(' ').append(name).append(" {\n\t}\n"));
    return Optional.of(out.append("}\n").toString());
  }

  @Override
  public Optional<String> set(String family, String table, String set) {
    markerReads.incrementAndGet();
    if (!nft.objects().containsKey("set " + set)) {
      return Optional.empty();
    }
    var out = new StringBuilder("table ip proxima {\n\tset " + set + " {\n\t\ttype mark\n");
    var elements = nft.elementsOf(set).values();
    if (!elements.isEmpty()) {
      out.append("\t\telements = { ").append(String.join(",\n\t\t\t     ", elements));
      out.append(" }\n");
    }
    return Optional.of(out.append("\t}\n}\n").toString());
  }

  @Override
  public boolean referenced(String family, String table, String set) {
    boolean referenced = nft.referenced(set);
    // Counted once answered: a test waiting for the count may then change the table.
    referenceChecks.incrementAndGet();
    return referenced;
  }
}
