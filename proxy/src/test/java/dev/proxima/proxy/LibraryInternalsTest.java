package dev.proxima.proxy;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * A library's {@code impl} and {@code internal} packages are not its API: they change in any
 * release without notice, and code built on them breaks on an upgrade that kept every promise. The
 * proxy jar's own classes, with the shared cli-support and api-model classes it ships, use only
 * what their libraries publish.
 */
class LibraryInternalsTest {
  @Test
  void noProductionClassDependsOnALibrarysImplOrInternalPackage() {
    var production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // The other modules' test jars are on this classpath too, and not in the product.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.proxima");

    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..impl..", "..internal..")
        .because("a library's impl and internal packages are not its API")
        .check(production);
  }
}
