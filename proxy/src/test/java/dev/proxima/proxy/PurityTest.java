package dev.proxima.proxy;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * What the proxy programs is a pure function of a snapshot: selection, planning, rendering and
 * change tracking may use the Kubernetes model but never the API client.
 */
class PurityTest {
  @Test
  void planningPackagesNeverTouchTheApiClient() {
    var production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.proxima.proxy");

    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.proxima.proxy.model..",
            "dev.proxima.proxy.catalog..",
            "dev.proxima.proxy.selection..",
            "dev.proxima.proxy.plan..",
            "dev.proxima.proxy.explain..",
            "dev.proxima.proxy.render..",
            "dev.proxima.proxy.track..",
            "dev.proxima.proxy.sync..",
            "dev.proxima.proxy.conntrack..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes.client..")
        .because("desired rules are a pure function of a snapshot; I/O lives in runtime and cli")
        .check(production);
  }
}
