package dev.proxima.proxy.cli;

import dev.proxima.cli.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "proxima-proxy",
    mixinStandardHelpOptions = true,
    versionProvider = ProxyMain.VersionProvider.class,
    description = "Node-local service proxy that routes by EndpointSlice topology hints.")
public final class ProxyMain implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLineFor(args).execute(args));
  }

  /** In the order {@code --help} lists them. */
  public static CommandLine commandLine() {
    return new CommandLine(new ProxyMain())
        .addSubcommand(new RunCommand())
        .addSubcommand(new ExplainCommand())
        .addSubcommand(new StatusCommand())
        .addSubcommand(new RenderCommand())
        .addSubcommand(new CleanupCommand())
        .setCaseInsensitiveEnumValuesAllowed(true);
  }

  /**
   * For {@code run ...}, the tree with only that command: picocli reads every command's options
   * when it builds the tree, the other three's are not needed by a node's start, and a start's time
   * before its first list request is mostly such single-threaded work (docs/performance.md). What
   * {@code run} parses, prints and reports is the same in both trees.
   */
  static CommandLine commandLineFor(String[] args) {
    if (args.length > 0 && "run".equals(args[0])) {
      return new CommandLine(new ProxyMain())
          .addSubcommand(new RunCommand())
          .setCaseInsensitiveEnumValuesAllowed(true);
    }
    return commandLine();
  }

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
