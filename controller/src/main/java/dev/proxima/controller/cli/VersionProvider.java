package dev.proxima.controller.cli;

import dev.proxima.cli.BuildInfo;

/** Reports the version and commit the jar was built from. */
final class VersionProvider extends BuildInfo.VersionProvider {
  VersionProvider() {
    super("proxima-controller");
  }
}
