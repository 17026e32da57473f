package dev.proxima.proxy;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The proxy image runs the jar on a jlink runtime cut to a few modules (JLINK_MODULES in
 * deploy/images/proxy/Dockerfile); a class from another module fails there only when it is first
 * loaded, as {@code explain --live}'s first HTTP client did.
 */
class ImageRuntimeTest {
  @Test
  void theProxyNeverUsesTheJdkHttpClientModuleTheImageLeavesOut() {
    var production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.proxima.proxy");

    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.net.http..")
        .because("the image's runtime has no java.net.http module")
        .check(production);
  }
}
