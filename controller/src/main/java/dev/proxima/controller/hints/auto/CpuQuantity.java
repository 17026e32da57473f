package dev.proxima.controller.hints.auto;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** Exact CPU arithmetic on resource quantities, as apimachinery's resource.Quantity does it. */
final class CpuQuantity {
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);

  private CpuQuantity() {}

  /**
   * The exact number of cores a quantity stands for ("4", "3500m", "0.5", "1e3", "2Ki"). A missing
   * quantity is zero, like upstream's {@code Allocatable.Cpu()}. So is one that does not parse:
   * upstream could never decode such a Node, and zero makes the node info insufficient, which is
   * the safe outcome.
   */
  static BigDecimal cores(Quantity quantity) {
    if (quantity == null) {
      return BigDecimal.ZERO;
    }
    try {
      return quantity.getNumericalAmount();
    } catch (RuntimeException unparseable) {
      return BigDecimal.ZERO;
    }
  }

  /**
   * Upstream's {@code MilliValue()}: the value in thousandths, rounded away from zero when it has
   * finer precision ("100n" is 1 milli-CPU).
   */
  static long milli(BigDecimal cores) {
    return cores.multiply(THOUSAND).setScale(0, RoundingMode.UP).longValue();
  }
}
