package dev.proxima.e2e.deploy;

import dev.proxima.controller.cli.ControllerMain;
import dev.proxima.proxy.cli.ProxyMain;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The two binaries' real command lines, as the manifests drive them: which options and which
 * environment variables a subcommand knows, and what a container's args and env make of them.
 */
enum CommandLines {
  CONTROLLER(ControllerMain::commandLine),
  PROXY(ProxyMain::commandLine);

  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)");
  private static final Pattern FALLBACK =
      Pattern.compile("^\\$\\{env:[A-Za-z_][A-Za-z0-9_]*:-([^$}]*)}$");

  private final Supplier<CommandLine> commandLine;

  CommandLines(Supplier<CommandLine> commandLine) {
    this.commandLine = commandLine;
  }

  /** The binary a container image runs, judged by the image's name. */
  static Optional<CommandLines> forImage(String image) {
    if (image.contains("proxima/controller") || image.contains("proxima-controller")) {
      return Optional.of(CONTROLLER);
    }
    if (image.contains("proxima/proxy") || image.contains("proxima-proxy")) {
      return Optional.of(PROXY);
    }
    return Optional.empty();
  }

  CommandLine fresh() {
    return commandLine.get();
  }

  /**
   * A subcommand's spec as declared: variables in default values are not interpolated, so {@link
   * OptionSpec#defaultValue()} shows {@code ${env:NAME:-fallback}} itself. Inspect it; parse with
   * {@link #fresh()}.
   */
  Optional<CommandSpec> subcommand(String name) {
    var sub = fresh().setInterpolateVariables(false).getSubcommands().get(name);
    return sub == null ? Optional.empty() : Optional.of(sub.getCommandSpec());
  }

  /** Every option name the subcommand accepts, negated forms included. */
  static Set<String> optionNames(CommandSpec spec) {
    var names = new LinkedHashSet<String>();
    for (var option : spec.options()) {
      names.addAll(List.of(option.names()));
    }
    names.addAll(spec.negatedOptionsMap().keySet());
    return names;
  }

  /**
   * Every environment variable an option's default value reads ({@code ${env:NAME...}}); the spec
   * must come from {@link #subcommand}.
   */
  static Set<String> environmentNames(CommandSpec spec) {
    var names = new LinkedHashSet<String>();
    for (var option : spec.options()) {
      names.addAll(environmentNames(option));
    }
    return names;
  }

  static List<String> environmentNames(OptionSpec option) {
    var names = new ArrayList<String>();
    var defaultValue = option.defaultValue();
    if (defaultValue != null) {
      var matcher = ENV.matcher(defaultValue);
      while (matcher.find()) {
        names.add(matcher.group(1));
      }
    }
    return names;
  }

  /**
   * The option whose default reads this variable first, e.g. --cluster-cidr for
   * PROXIMA_CLUSTER_CIDR.
   */
  static Optional<OptionSpec> optionReading(CommandSpec spec, String environmentName) {
    return spec.options().stream()
        .filter(
            option ->
                environmentNames(option).stream().findFirst().orElse("").equals(environmentName))
        .findFirst();
  }

  /** The value after {@code :-} in a default such as {@code ${env:X:-0.0.0.0:8080}}. */
  static Optional<String> builtInDefault(OptionSpec option) {
    var defaultValue = option.defaultValue();
    if (defaultValue == null) {
      return Optional.empty();
    }
    var matcher = FALLBACK.matcher(defaultValue);
    return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
  }
}
