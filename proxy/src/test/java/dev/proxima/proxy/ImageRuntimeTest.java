package dev.proxima.proxy;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The proxy image runs the jar on a jlink runtime cut to a few modules (JLINK_MODULES in
 * deploy/images/proxy/Dockerfile); a class from another module fails there only when it is first
 * loaded, as {@code explain --live}'s first HTTP client did. The shared cli-support and api-model
 * classes ship in the same jar, so they are held to the same rule.
 */
class ImageRuntimeTest {
  @Test
  void theProxyJarsOwnClassesNeverUseTheJdkHttpClientModuleTheImageLeavesOut() {
    var production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // The other modules' test jars are on this classpath too, and not in the image.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.proxima");

    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.net.http..")
        .because("the image's runtime has no java.net.http module")
        .check(production);
  }
}
