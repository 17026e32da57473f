package dev.proxima.proxy.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class or method of the root tier: it needs root, for network namespaces, {@code nft}
 * or {@code iptables} against the real kernel. Without root it is skipped, and the run says at its
 * end how many were ({@link RootTierCondition}); with {@code PROXIMA_E2E_REQUIRED=true} (as in CI)
 * it fails instead. Tagged {@code root}, so {@code -Dgroups=root} runs this tier alone and {@code
 * -DexcludedGroups=root} leaves it out. The tools it needs besides are checked by the test itself.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("root")
@ExtendWith(RootTierCondition.class)
public @interface RootTier {}
