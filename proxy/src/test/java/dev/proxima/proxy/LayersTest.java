package dev.proxima.proxy;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The proxy's packages depend in one direction: the command line composes the runtime; the runtime
 * runs the per-family syncs over the informers (what the cluster says) and the data planes (what
 * the kernel holds), which do not know each other; a data plane loads through the kernel adapter;
 * and all of them build on the core: the pure packages (model, selection, planning, routing,
 * rendering, change tracking) and the sync loop's scheduling. Package nftables, the typed nft
 * objects and transactions, is the vocabulary the renderer, the data plane and the kernel adapter
 * share. {@link PurityTest} says what the core itself may not do.
 */
class LayersTest {
  private static final String PROXY = "dev.proxima.proxy.";

  /** The adapter that runs {@code conntrack}, beside the pure code that decides what it deletes. */
  private static final String CONNTRACK_RUNNER =
      "dev\\.proxima\\.proxy\\.conntrack\\.ConntrackCleaner(\\$.*)?";

  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.proxima.proxy");

  @Test
  void eachLayerUsesOnlyTheLayersBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitecture()
        .layer("cli")
        .definedBy(PROXY + "cli..")
        .layer("config")
        .definedBy(PROXY + "config..")
        .layer("runtime")
        .definedBy(PROXY + "runtime..")
        .layer("informers")
        .definedBy(PROXY + "informers..")
        .layer("dataplane")
        .definedBy(PROXY + "dataplane..")
        .layer("kernel")
        .definedBy(resideInAPackage(PROXY + "kernel..").or(nameMatching(CONNTRACK_RUNNER)))
        .layer("health and metrics")
        .definedBy(PROXY + "health..", PROXY + "metrics..")
        .layer("nftables")
        .definedBy(PROXY + "nftables..")
        .layer("core")
        .definedBy(
            resideInAnyPackage(
                    PROXY + "model..",
                    PROXY + "catalog..",
                    PROXY + "selection..",
                    PROXY + "plan..",
                    PROXY + "route..",
                    PROXY + "render..",
                    PROXY + "track..",
                    PROXY + "explain..",
                    PROXY + "status..",
                    PROXY + "sync..",
                    PROXY + "conntrack..")
                .and(not(nameMatching(CONNTRACK_RUNNER))))
        .whereLayer("cli")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("config")
        .mayOnlyBeAccessedByLayers("cli")
        .whereLayer("runtime")
        .mayOnlyBeAccessedByLayers("cli")
        .whereLayer("informers")
        .mayOnlyBeAccessedByLayers("runtime", "cli")
        .whereLayer("dataplane")
        .mayOnlyBeAccessedByLayers("runtime", "cli")
        .whereLayer("kernel")
        .mayOnlyBeAccessedByLayers("dataplane", "runtime", "cli")
        .whereLayer("health and metrics")
        .mayOnlyBeAccessedByLayers("dataplane", "runtime", "cli")
        .whereLayer("nftables")
        .mayOnlyBeAccessedByLayers(
            "core", "health and metrics", "kernel", "dataplane", "runtime", "cli")
        .because(
            "cli composes the runtime, which syncs the informers' objects into the data planes;"
                + " a data plane loads through the kernel adapter, and the core knows none"
                + " of them")
        .check(PRODUCTION);
  }

  @Test
  void theNftablesAndTheIptablesRenderersDoNotUseEachOther() {
    slices()
        .matching(PROXY + "render.(*)..")
        .should()
        .notDependOnEachOther()
        .because(
            "both modes render the same mode-neutral description (package render); what they share"
                + " lives there")
        .check(PRODUCTION);
  }

  @Test
  void theNftablesVocabularyUsesNoneOfItsUsers() {
    noClasses()
        .that()
        .resideInAPackage(PROXY + "nftables..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            PROXY + "render.nft..",
            PROXY + "render.iptables..",
            PROXY + "plan..",
            PROXY + "kernel..",
            PROXY + "dataplane..",
            PROXY + "runtime..")
        .because(
            "the nft objects and transactions are the words the renderer, the data plane and the"
                + " kernel adapter share; they say nothing about any of them")
        .check(PRODUCTION);
  }

  @Test
  void renderingNeverPlans() {
    noClasses()
        .that()
        .resideInAPackage(PROXY + "render..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            PROXY + "plan..",
            PROXY + "selection..",
            PROXY + "catalog..",
            PROXY + "track..",
            PROXY + "sync..")
        .because("the plan hands the renderers a finished description, which they render as given")
        .check(PRODUCTION);
  }

  @Test
  void onlyTheInformersAndTheirCompositionTalkToTheApiServer() {
    noClasses()
        .that()
        .resideOutsideOfPackages(PROXY + "informers..", PROXY + "runtime..", PROXY + "cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.fabric8.kubernetes.client..")
        .because(
            "the informers read the cluster and the runtime and cli build the client; the data"
                + " planes and the kernel adapter act on the node only")
        .check(PRODUCTION);
  }
}
