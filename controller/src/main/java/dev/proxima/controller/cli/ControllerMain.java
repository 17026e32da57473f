package dev.proxima.controller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code proxima-controller.jar}. */
@Command(
    name = "proxima-controller",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Writes EndpointSlice topology hints from spec.trafficDistribution.",
    subcommands = {RunCommand.class, PlanCommand.class})
public final class ControllerMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line; tests execute it in-process. */
  public static CommandLine commandLine() {
    return new CommandLine(new ControllerMain()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }
}
