package dev.proxima.proxy;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.syntax.elements.GivenClassesConjunction;
import org.junit.jupiter.api.Test;

/**
 * What the proxy programs is a pure function of a snapshot: selection, planning, routing, rendering
 * and change tracking may use the Kubernetes model but never the API client, and they never run a
 * process, open a file or a socket, start a thread or touch a Prometheus metric. The adapters
 * (runtime, informers, dataplane, kernel, health, metrics, cli, and {@code
 * conntrack.ConntrackCleaner}) do that. {@link LayersTest} keeps the packages pointing one way.
 */
class PurityTest {
  /** The packages docs/architecture.md lists under "decides". */
  private static final String[] PURE = {
    "dev.proxima.proxy.model..",
    "dev.proxima.proxy.catalog..",
    "dev.proxima.proxy.selection..",
    "dev.proxima.proxy.plan..",
    "dev.proxima.proxy.route..",
    "dev.proxima.proxy.explain..",
    "dev.proxima.proxy.nftables..",
    "dev.proxima.proxy.render..",
    "dev.proxima.proxy.track..",
    "dev.proxima.proxy.conntrack..",
    "dev.proxima.proxy.status..",
  };

  /** The adapter that runs {@code conntrack}; the rest of its package decides what to delete. */
  private static final String CONNTRACK_RUNNER = "dev.proxima.proxy.conntrack.ConntrackCleaner";

  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.proxima.proxy");

  @Test
  void planningPackagesNeverTouchTheApiClient() {
    pureOrSync()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes.client..")
        .because(
            "desired rules are a pure function of a snapshot; the API client lives in informers,"
                + " runtime and cli")
        .check(PRODUCTION);
  }

  @Test
  void purePackagesNeverRunProcessesOrUseTheAdaptersThatDo() {
    pure()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName(ProcessBuilder.class.getName())
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(Process.class.getName())
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(Runtime.class.getName())
        .orShould()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.proxima.proxy.kernel..",
            "dev.proxima.proxy.dataplane..",
            "dev.proxima.proxy.informers..",
            "dev.proxima.proxy.runtime..",
            "dev.proxima.proxy.cli..",
            "dev.proxima.proxy.health..")
        .because("the kernel tools and the live proxy are adapters around the pure core")
        .check(PRODUCTION);
  }

  @Test
  void purePackagesNeverOpenFilesOrSockets() {
    pure()
        .should()
        .dependOnClassesThat()
        .haveNameMatching("java\\.io\\.(File|RandomAccessFile).*")
        .orShould()
        .dependOnClassesThat()
        .resideInAnyPackage("java.nio.file..", "java.nio.channels..", "java.net..")
        .because(
            "pure code is given its input; java.net also covers InetAddress, which may ask DNS")
        .check(PRODUCTION);
  }

  @Test
  void purePackagesNeverStartThreads() {
    pure()
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName(Thread.class.getName())
        .orShould()
        .dependOnClassesThat()
        .haveNameMatching(
            "java\\.util\\.concurrent\\.(Executor.*|ScheduledExecutorService|ForkJoinPool"
                + "|CompletableFuture|ThreadFactory)")
        .because("the sync loop (package sync) owns the only thread of the decision path")
        .check(PRODUCTION);
  }

  @Test
  void purePackagesAndTheSyncLoopNeverTouchMetrics() {
    pureOrSync()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.prometheus..", "dev.proxima.proxy.metrics..")
        .because("metrics observe a sync result; they are recorded by the runtime")
        .check(PRODUCTION);
  }

  private static GivenClassesConjunction pureOrSync() {
    return noClasses()
        .that()
        .resideInAnyPackage(PURE)
        .or()
        .resideInAPackage("dev.proxima.proxy.sync..");
  }

  private static GivenClassesConjunction pure() {
    return noClasses()
        .that()
        .resideInAnyPackage(PURE)
        .and()
        .haveNameNotMatching(CONNTRACK_RUNNER.replace(".", "\\.") + "(\\$.*)?");
  }
}
