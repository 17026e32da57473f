package dev.proxima.proxy.runtime;

import dev.proxima.proxy.metrics.ProxyMetrics;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.RuleSettings;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says where a family's NodePorts are accepted when --nodeport-addresses restricts them: a warning
 * and a gauge while it matches no address of the node, a line when that changes.
 */
final class NodePortAddressReport {
  private static final Logger log = LoggerFactory.getLogger(NodePortAddressReport.class);

  private final IpFamily family;
  private final RuleSettings rules;
  private final ProxyMetrics metrics;

  /** Whether NodePorts were served nowhere at the last report; null before the first. */
  private Boolean servedNowhere;

  NodePortAddressReport(IpFamily family, RuleSettings rules, ProxyMetrics metrics) {
    this.family = family;
    this.rules = rules;
    this.metrics = metrics;
  }

  void report(List<String> addresses) {
    boolean nowhere = rules.restrictsNodePorts(family) && addresses.isEmpty();
    metrics.nodePortsServedNowhere(family, nowhere);
    if (servedNowhere != null && servedNowhere == nowhere) {
      return;
    }
    servedNowhere = nowhere;
    if (nowhere) {
      log.atWarn()
          .addKeyValue("family", family.apiName())
          .addKeyValue("nodeportAddresses", String.join(",", rules.nodePortCidrs()))
          .log(
              "--nodeport-addresses matches no address of this node in this family; NodePorts"
                  + " are accepted on no address until one matches");
    } else if (rules.restrictsNodePorts(family)) {
      log.atInfo()
          .addKeyValue("family", family.apiName())
          .addKeyValue("addresses", String.join(",", addresses))
          .log("NodePorts are accepted on the addresses --nodeport-addresses selects");
    }
  }
}
