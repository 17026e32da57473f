package dev.proxima.e2e.netns;

import java.util.Comparator;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Runs the container suite ({@code *ContainerIT}) after every other test class of the run: it
 * builds the images first, and CI runs it after the other suites. Others keep their order.
 */
public final class ContainersLast implements ClassOrderer {
  @Override
  public void orderClasses(ClassOrdererContext context) {
    context
        .getClassDescriptors()
        .sort(
            Comparator.comparing(
                d -> d.getTestClass().getSimpleName().endsWith("ContainerIT") ? 1 : 0));
  }
}
