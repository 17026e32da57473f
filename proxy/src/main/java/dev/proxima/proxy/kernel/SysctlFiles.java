package dev.proxima.proxy.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Integer sysctls as files under one directory, so that tests can use a temporary one. */
public final class SysctlFiles {
  private final Path directory;

  public SysctlFiles(Path directory) {
    this.directory = directory;
  }

  public static SysctlFiles netfilter() {
    return new SysctlFiles(Path.of("/proc/sys/net/netfilter"));
  }

  public Path directory() {
    return directory;
  }

  public OptionalLong read(String key) {
    try {
      return OptionalLong.of(
          Long.parseLong(
              Files.readString(directory.resolve(key), StandardCharsets.US_ASCII).trim()));
    } catch (IOException | NumberFormatException | SecurityException unreadable) {
      return OptionalLong.empty();
    }
  }

  /**
   * As access(2) answers, which even root cannot override for a read-only mount or sysctl. A
   * missing key counts as writable: that the write then fails is worth a warning.
   */
  public boolean writable(String key) {
    var file = directory.resolve(key);
    try {
      return Files.notExists(file) || Files.isWritable(file);
    } catch (SecurityException refused) {
      return false;
    }
  }

  public void write(String key, long value) throws IOException {
    Files.writeString(directory.resolve(key), value + "\n", StandardCharsets.US_ASCII);
  }
}
