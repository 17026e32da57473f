package dev.proxima.cli;

import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * The version and Git commit this build was made from, as the build wrote them into {@code
 * build-info.properties}. A build without Git history (a source tarball) says {@code unknown}.
 */
public record BuildInfo(String version, String revision, String shortRevision) {
  private static final String RESOURCE = "build-info.properties";

  /** This build's. */
  public static BuildInfo current() {
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return new BuildInfo("unknown", "unknown", "unknown");
      }
      var properties = new Properties();
      properties.load(in);
      return new BuildInfo(
          properties.getProperty("version", "unknown"),
          properties.getProperty("revision", "unknown"),
          properties.getProperty("shortRevision", "unknown"));
    } catch (IOException unreadable) {
      throw new UncheckedIOException(unreadable);
    }
  }

  /** What {@code -V} prints, e.g. {@code proxima-proxy 0.1.0 (commit 1a2b3c4d5e6f)}. */
  public String versionLine(String program) {
    return program + " " + version + " (commit " + shortRevision + ")";
  }

  /**
   * Registers {@code proxima_build_info}: 1, labelled with the version and the full commit. An info
   * metric, which the Prometheus text format exposes as a gauge of that name.
   */
  public void register(PrometheusRegistry registry) {
    Info.builder()
        .name("proxima_build_info")
        .help("Always 1; the labels say which version and Git commit this binary was built from")
        .labelNames("version", "revision")
        .register(registry)
        .setLabelValues(version, revision);
  }

  /** A picocli version provider for a binary; subclasses name the program. */
  public abstract static class VersionProvider implements CommandLine.IVersionProvider {
    private final String program;

    protected VersionProvider(String program) {
      this.program = program;
    }

    @Override
    public String[] getVersion() {
      return new String[] {current().versionLine(program)};
    }
  }
}
