package dev.proxima.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BuildInfoTest {
  @Test
  void theBuildRecordsTheProjectVersionAndAGitCommit() {
    var info = BuildInfo.current();

    assertThat(info.version()).isEqualTo("0.1.0-SNAPSHOT");
    // This checkout has Git history, so the build found a commit; a tarball would say "unknown".
    assertThat(info.revision()).matches("[0-9a-f]{40}");
    assertThat(info.shortRevision()).hasSize(12).isEqualTo(info.revision().substring(0, 12));
  }

  @Test
  void theVersionLineNamesProgramVersionAndCommit() {
    var info = new BuildInfo("1.2.3", "0123456789abcdef0123456789abcdef01234567", "0123456789ab");

    assertThat(info.versionLine("proxima-proxy"))
        .isEqualTo("proxima-proxy 1.2.3 (commit 0123456789ab)");
  }

  @Test
  void theBuildInfoMetricIsAGaugeOfOneLabelledWithVersionAndRevision() throws Exception {
    var registry = new PrometheusRegistry();
    new BuildInfo("1.2.3", "0123456789abcdef0123456789abcdef01234567", "0123456789ab")
        .register(registry);

    var out = new ByteArrayOutputStream();
    new PrometheusTextFormatWriter(false).write(out, registry.scrape());
    var text = out.toString(StandardCharsets.UTF_8);

    assertThat(text)
        .contains("# TYPE proxima_build_info gauge")
        .contains(
            "proxima_build_info{revision=\"0123456789abcdef0123456789abcdef01234567\",version=\"1.2.3\"} 1");
  }
}
