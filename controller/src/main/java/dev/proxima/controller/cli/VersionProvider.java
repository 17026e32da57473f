package dev.proxima.controller.cli;

import picocli.CommandLine;

/** Reports the version the jar was built as. */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    var version = ControllerMain.class.getPackage().getImplementationVersion();
    return new String[] {"proxima-controller " + (version == null ? "development build" : version)};
  }
}
