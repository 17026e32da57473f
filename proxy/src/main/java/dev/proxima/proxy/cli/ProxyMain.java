package dev.proxima.proxy.cli;

import dev.proxima.cli.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code proxima-proxy.jar}. */
@Command(
    name = "proxima-proxy",
    mixinStandardHelpOptions = true,
    versionProvider = ProxyMain.VersionProvider.class,
    description = "Node-local service proxy that routes by EndpointSlice topology hints.",
    subcommands = {
      RunCommand.class,
      ExplainCommand.class,
      RenderCommand.class,
      CleanupCommand.class,
      TrainStartupCommand.class
    })
public final class ProxyMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return new CommandLine(new ProxyMain()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  /** Reports the version and commit the jar was built from. */
  static final class VersionProvider extends BuildInfo.VersionProvider {
    VersionProvider() {
      super("proxima-proxy");
    }
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
  }
}
