package dev.proxima.controller;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages that compute desired state stay pure: they may use the Kubernetes model classes but
 * never the API client, so they can be table-tested and run offline by the plan command.
 */
class PurityTest {
  private static JavaClasses production;

  @BeforeAll
  static void importProductionClasses() {
    production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.proxima");
  }

  @Test
  void planningPackagesNeverTouchTheApiClient() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.proxima.model..",
            "dev.proxima.controller.hints..",
            "dev.proxima.controller.conditions..",
            "dev.proxima.controller.events..",
            "dev.proxima.controller.reconcile..",
            "dev.proxima.controller.queue..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8.kubernetes.client..")
        .because("desired state is a pure function of a snapshot; I/O lives in adapters")
        .check(production);
  }

  @Test
  void thePlannerDoesNotDependOnTheRuntime() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.proxima.controller.hints..", "dev.proxima.controller.conditions..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.proxima.controller.kube..",
            "dev.proxima.controller.runtime..",
            "dev.proxima.controller.cli..",
            "org.slf4j..")
        .check(production);
  }

  /**
   * The image runs the jar on a jlink runtime with only JLINK_MODULES (deploy/images/controller/
   * Dockerfile); a class of a left-out module fails only when first loaded, in production.
   */
  @Test
  void nothingInTheJarUsesTheJdkHttpClientModuleTheImageLeavesOut() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.net.http..")
        .check(production);
  }
}
