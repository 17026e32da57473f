package dev.proxima.e2e.netns;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.proxy.model.ProxyMode;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives scenarios the one shared {@link NetnsCluster}, built on first use and torn down when the
 * run ends (also when a scenario failed). After a failed scenario it prints every node's ruleset
 * and proxy log; after every scenario it deletes the scenario's Services.
 */
final class NetnsClusterExtension
    implements BeforeAllCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(NetnsClusterExtension.class);

  /** Namespace and link names start with this; it keeps parallel runs on one machine apart. */
  static final String PREFIX = System.getProperty("proxima.e2e.prefix", "pxe");

  /** The same for the cluster whose components run as containers ({@link InContainers}). */
  static final String CONTAINER_PREFIX = System.getProperty("proxima.e2e.container-prefix", "pxc");

  /** Marks a test class whose cluster runs the images as the manifests say, not the jars. */
  interface InContainers {}

  /**
   * Marks a test class that runs the proxies in a mode of its own choosing (it calls {@link
   * NetnsCluster#useMode} before its scenarios); every other class gets nftables mode.
   */
  interface PicksProxyMode {}

  private record Shared(NetnsCluster cluster) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      cluster.close();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    var missing =
        inContainers(context)
            ? HostRequirements.missingForContainers()
            : HostRequirements.missing();
    if (!missing.isEmpty()) {
      var explanation =
          HostRequirements.explanation(missing)
              + (inContainers(context)
                  ? " The container suite alone: -Dit.test=ManifestsContainerIT (docs/testing.md)."
                  : "");
      if (HostRequirements.required()) {
        fail(explanation + " (PROXIMA_E2E_REQUIRED=true)");
      }
      assumeTrue(false, explanation);
    }
    var cluster = cluster(context);
    // The cluster outlives each class, so a class must not inherit the mode the one before it
    // chose: the classes that pick theirs do so, everything else assumes the default.
    if (!PicksProxyMode.class.isAssignableFrom(context.getRequiredTestClass())) {
      cluster.useMode(ProxyMode.nftables);
    }
  }

  private static boolean inContainers(ExtensionContext context) {
    return InContainers.class.isAssignableFrom(context.getRequiredTestClass());
  }

  /** One cluster of each kind per run; they have different prefixes, so both can be up. */
  private static NetnsCluster cluster(ExtensionContext context) {
    boolean containers = inContainers(context);
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent(
            containers ? InContainers.class : Shared.class,
            k ->
                new Shared(
                    containers
                        ? NetnsCluster.start(
                            CONTAINER_PREFIX, ProxyMode.nftables, ContainerComponents::new)
                        : NetnsCluster.start(PREFIX, ProxyMode.nftables)),
            Shared.class)
        .cluster();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    var cluster = cluster(context);
    if (context.getExecutionException().isPresent()) {
      System.out.println("FAILED " + context.getDisplayName() + ": " + cluster.diagnostics());
    }
    cluster.deleteWorkloads();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == NetnsCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster(context);
  }
}
