package dev.proxima.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The class-data archive an image's JVM maps at start ({@code -XX:SharedArchiveFile} in the image's
 * entrypoint), made here the way the image build makes it: one offline {@code render} of the
 * image's made-up cluster (deploy/images/proxy/training-cluster.yaml) with {@code
 * -XX:DumpLoadedClassList}, then a static archive of those classes ({@code -Xshare:dump}), by this
 * harness's JVM, which must also be the JVM that maps it. Made once per jar and kept beside it
 * until the jar changes.
 */
final class StartupArchive {
  /**
   * BENCH_TRIAL_AOT_CACHE=1, for a JDK 24 or later: an AOT cache (JEP 483) trained the same way,
   * instead of the dynamic class-data archive the image ships. The figures then are not the
   * image's.
   */
  private static final boolean AOT_CACHE = "1".equals(System.getenv("BENCH_TRIAL_AOT_CACHE"));

  private StartupArchive() {}

  /** The flag that maps {@code archive}. */
  static String use(Path archive) {
    return (AOT_CACHE ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive;
  }

  /** The archive for {@code jar}, trained now if missing or older than the jar. */
  static synchronized Path trained(Path jar, List<String> manifestFlags) {
    var name = jar.getFileName().toString().replaceAll("\\.jar$", "");
    var archive = jar.resolveSibling(name + (AOT_CACHE ? "-bench.aot" : "-bench.jsa"));
    try {
      if (Files.exists(archive)
          && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0) {
        return archive;
      }
      Files.deleteIfExists(archive);
      var log = jar.resolveSibling(name + "-bench-jsa.log");
      var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      var classList = jar.resolveSibling(name + "-bench.classlist");
      var training = new ArrayList<String>(List.of(java));
      training.addAll(manifestFlags);
      training.add(
          AOT_CACHE ? "-XX:AOTCacheOutput=" + archive : "-XX:DumpLoadedClassList=" + classList);
      var cluster =
          jar.toAbsolutePath()
              .getParent()
              .getParent()
              .resolveSibling("deploy/images/proxy/training-cluster.yaml");
      training.addAll(
          List.of(
              "-jar", jar.toString(), "render", "--state", cluster.toString(), "--node", "node-a"));
      run(training, log);
      if (!AOT_CACHE) {
        // With -jar, as the JVM that maps it gets its class path; the dump does not run the jar.
        run(
            List.of(
                java,
                "-XX:+UseSerialGC",
                "-Xshare:dump",
                "-Xlog:cds=error",
                "-XX:SharedClassListFile=" + classList,
                "-XX:SharedArchiveFile=" + archive,
                "-jar",
                jar.toString()),
            jar.resolveSibling(name + "-bench-jsa-dump.log"));
        Files.deleteIfExists(classList);
      }
      if (!Files.exists(archive)) {
        throw new HarnessError("no startup archive after training; see " + log);
      }
      return archive;
    } catch (IOException e) {
      throw new HarnessError("cannot train the startup archive for " + jar, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HarnessError("interrupted while training the startup archive", e);
    }
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Progress.log("training the startup archive: " + String.join(" ", command));
    var process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new HarnessError(
          "training the startup archive did not finish in 5 minutes; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new HarnessError(
          "training the startup archive exited " + process.exitValue() + "; see " + log);
    }
  }

  /**
   * A flag that, placed after the image's, leaves the JVM with only the JDK's own archive: what the
   * startup archive saves over the archive every JDK ships (the image itself keeps only the startup
   * archive, which holds the JDK's classes too).
   */
  static String withoutIt() {
    if (AOT_CACHE) {
      return "-XX:AOTMode=off";
    }
    return "-XX:SharedArchiveFile="
        + Path.of(System.getProperty("java.home"), "lib", "server", "classes.jsa");
  }
}
