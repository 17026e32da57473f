package dev.proxima.e2e.demo.api;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What /version answers: the Kubernetes minor the demo's behaviour follows. */
final class VersionInfo {
  private VersionInfo() {}

  static ObjectNode document() {
    return JsonNodeFactory.instance
        .objectNode()
        .put("major", "1")
        .put("minor", "33")
        .put("gitVersion", "v1.33.0-proxima-demo")
        .put("gitCommit", "")
        .put("gitTreeState", "clean")
        .put("buildDate", "2026-01-01T00:00:00Z")
        .put("goVersion", "none")
        .put("compiler", "none")
        .put("platform", "linux/amd64");
  }
}
