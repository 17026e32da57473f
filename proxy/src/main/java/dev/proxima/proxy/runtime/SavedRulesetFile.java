package dev.proxima.proxy.runtime;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import dev.proxima.proxy.render.nft.SavedRuleset;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One family's saved ruleset on disk ({@link SavedRuleset}): {@code nft-ipv4.state} in the state
 * directory. Once the kernel took every transaction of a full rebuild, the file is written whole,
 * to a temporary file renamed into place when complete; other syncs append their records and a
 * commit line. Not thread-safe: one thread at a time, in the order of the loads ({@link
 * NftDataPlane} runs it on one thread of its own). Any failure to read or write is logged and costs
 * only the fast restart: the next start then loads everything, as without a state directory.
 */
final class SavedRulesetFile {
  private static final Logger LOG = LoggerFactory.getLogger(SavedRulesetFile.class);

  /** Appended records beyond this, and beyond the whole file's size, make the file rewritten. */
  private static final long COMPACT_AFTER_BYTES = 4L << 20;

  private final Path file;
  private final Path temporary;
  private final IpFamily family;
  private BufferedWriter whole;
  private long wholeBytes;
  private long appendedBytes;
  private boolean failing;

  /** The file on disk ends in a commit this process wrote or read: records may be appended. */
  private boolean valid;

  SavedRulesetFile(Path directory, IpFamily family) {
    this.family = family;
    var name = "nft-" + family.name().toLowerCase(Locale.ROOT) + ".state";
    this.file = directory.resolve(name);
    this.temporary = directory.resolve(name + ".tmp");
  }

  Path path() {
    return file;
  }

  /**
   * What the file holds, up to its last commit; empty when there is no file, and, with a WARN, when
   * it cannot be read or is not a saved ruleset.
   */
  Optional<SavedRuleset.Contents> read() {
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      var contents = SavedRuleset.parse(reader.lines().iterator());
      wholeBytes = Files.size(file);
      appendedBytes = 0;
      valid = true;
      return Optional.of(contents);
    } catch (NoSuchFileException absent) {
      LOG.atInfo()
          .addKeyValue("family", family)
          .addKeyValue("file", file)
          .log("No saved ruleset; the first sync loads every rule");
    } catch (SavedRuleset.Corrupt | IOException | UncheckedIOException e) {
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("file", file)
          .addKeyValue("error", e.getMessage())
          .log("Cannot use the saved ruleset; the first sync loads every rule");
    }
    return Optional.empty();
  }

  /**
   * What the file says of where its table came from ({@link SavedRuleset#provenance}), without
   * reading the ports' records and without changing what this object knows of the file; empty when
   * there is no file or it cannot be read, which {@link #read} then reports.
   */
  Optional<SavedRuleset.Provenance> readProvenance() {
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return Optional.of(SavedRuleset.provenance(reader.lines().iterator()));
    } catch (SavedRuleset.Corrupt | IOException | UncheckedIOException e) {
      LOG.atDebug()
          .addKeyValue("family", family)
          .addKeyValue("file", file)
          .addKeyValue("error", e.toString())
          .log("Cannot read where the saved ruleset came from");
      return Optional.empty();
    }
  }

  /**
   * Writes the file whole: the header, what {@code records} records, {@code provenance} (what the
   * ports were planned from), and the commit of {@code marker}; it replaces the old file only once
   * complete.
   */
  void writeWhole(
      String settingsDigest,
      Consumer<RulesetAssembler.Recorder> records,
      Supplier<String> provenance,
      SavedRuleset.Marker marker) {
    startWhole(settingsDigest);
    String planned;
    try {
      records.accept(this::write);
      planned = provenance.get();
    } catch (RuntimeException e) {
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("file", file)
          .addKeyValue("error", e.toString())
          .log(
              "Cannot write the saved ruleset; the proxy runs on, but its next start loads every rule");
      delete();
      return;
    }
    commitWhole(planned, marker);
  }

  /**
   * The kernel is about to hold something the file does not describe (a rebuild): nothing is
   * appended to the file until it is written whole again. The file itself stays; the table's marker
   * no longer matches it, so a restart would not trust it.
   */
  void invalidate() {
    abortWhole();
    valid = false;
  }

  /** Starts writing the file whole; the records follow through {@link #write}. */
  private void startWhole(String settingsDigest) {
    abortWhole();
    // From here the file no longer describes what the kernel will hold: nothing is appended to it
    // until the new one is in place.
    valid = false;
    try {
      Files.createDirectories(file.getParent());
      whole = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8);
      whole.write(SavedRuleset.header(settingsDigest));
    } catch (IOException e) {
      failed("write", e);
      whole = null;
    }
  }

  /** Part of the file being written whole. */
  private void write(String records) {
    if (whole == null) {
      return;
    }
    try {
      whole.write(records);
    } catch (IOException e) {
      failed("write", e);
      abortWhole();
    }
  }

  /** The file written whole is complete: it replaces the old one. */
  private void commitWhole(String records, SavedRuleset.Marker marker) {
    if (whole == null) {
      return;
    }
    try (var out = whole) {
      whole = null;
      out.write(records);
      out.write(SavedRuleset.commit(marker));
      out.flush();
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      wholeBytes = Files.size(file);
      appendedBytes = 0;
      valid = true;
      recovered();
    } catch (IOException e) {
      failed("write", e);
      deleteQuietly(temporary);
      delete();
    }
  }

  /** The file being written whole goes; the old file stays as it was. */
  private void abortWhole() {
    if (whole != null) {
      try {
        whole.close();
      } catch (IOException ignored) {
        // The temporary file goes anyway.
      }
      whole = null;
    }
    deleteQuietly(temporary);
  }

  /** A sync the kernel took: its records and the marker the kernel now holds. */
  void append(String records, SavedRuleset.Marker marker) {
    if (!valid) {
      return;
    }
    var text = records + SavedRuleset.commit(marker);
    try {
      Files.writeString(
          file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
      appendedBytes += text.length();
      recovered();
    } catch (IOException e) {
      failed("append to", e);
      // A half-written record is ignored on reading, but records after it could not be trusted.
      delete();
    }
  }

  /**
   * Rewrites the file from its own contents once the appended records outgrow it, so it stays about
   * the size of the table's description however long the proxy runs.
   */
  void compactIfLarge() {
    if (!valid || appendedBytes < Math.max(COMPACT_AFTER_BYTES, wholeBytes)) {
      return;
    }
    var contents = read();
    if (contents.isEmpty()) {
      return;
    }
    var out = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 16, wholeBytes * 2));
    SavedRuleset.write(contents.get(), out);
    try {
      Files.writeString(temporary, out, StandardCharsets.UTF_8);
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      wholeBytes = out.length();
      appendedBytes = 0;
    } catch (IOException e) {
      failed("rewrite", e);
      deleteQuietly(temporary);
    }
  }

  /** Removes the file: what it says no longer matches the kernel. */
  void delete() {
    abortWhole();
    valid = false;
    deleteQuietly(file);
  }

  private void failed(String what, IOException e) {
    if (!failing) {
      LOG.atWarn()
          .addKeyValue("family", family)
          .addKeyValue("file", file)
          .addKeyValue("error", e.toString())
          .log(
              "Cannot "
                  + what
                  + " the saved ruleset; the proxy runs on, but its next start loads every rule");
    }
    failing = true;
  }

  private void recovered() {
    failing = false;
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // Nothing reads a temporary file; a stale one is overwritten next time.
    }
  }
}
