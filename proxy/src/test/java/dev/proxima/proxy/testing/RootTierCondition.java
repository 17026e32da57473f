package dev.proxima.proxy.testing;

import java.lang.reflect.AnnotatedElement;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Runs {@link RootTier} tests as root only. Every test it skips is counted in the run's root
 * context, and when the run ends one line says how many, so a run without root shows what it left
 * out rather than passing quietly.
 */
public final class RootTierCondition implements ExecutionCondition {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RootTierCondition.class);

  static final String REQUIRED = "PROXIMA_E2E_REQUIRED";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    var element = context.getElement().orElse(null);
    if (element == null || !AnnotationSupport.isAnnotated(element, RootTier.class)) {
      return ConditionEvaluationResult.enabled("not of the root tier");
    }
    if (HostTools.isRoot()) {
      return ConditionEvaluationResult.enabled("root");
    }
    if ("true".equalsIgnoreCase(System.getenv(REQUIRED))) {
      throw new IllegalStateException(
          "root tier test without root, and " + REQUIRED + "=true: run the tests as root");
    }
    skipped(context).addAndGet(tests(element));
    return ConditionEvaluationResult.disabled(
        "root tier: needs root (uid " + HostTools.uid() + "); see docs/testing.md");
  }

  /** A class counts its test methods; a method, itself. */
  private static int tests(AnnotatedElement element) {
    if (element instanceof Class<?> type) {
      return (int)
          Arrays.stream(type.getDeclaredMethods())
              .filter(method -> AnnotationSupport.isAnnotated(method, Testable.class))
              .count();
    }
    return 1;
  }

  private static AtomicInteger skipped(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent("skipped", key -> new Count(), Count.class)
        .skipped;
  }

  /** The run's count, printed when the run ends and its root context closes. */
  private static final class Count implements ExtensionContext.Store.CloseableResource {
    final AtomicInteger skipped = new AtomicInteger();

    @Override
    public void close() {
      System.out.println("root tier: " + skipped.get() + " tests skipped (not root)");
    }
  }
}
