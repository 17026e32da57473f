package dev.proxima.proxy.plan;

import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeSourcedLoadBalancerTest {
  private static final List<String> NODE = List.of("192.168.0.2", "2001:db8::1");

  @Test
  void rangesThatAdmitANodeAddressAlsoAdmitTheLoadBalancerIps() {
    var port =
        service("ns1/svc1", "172.30.0.41", 80)
            .loadBalancerIps("1.2.3.4", "5.6.7.8")
            .sourceRanges("192.168.0.0/24", "203.0.113.0/25")
            .build();

    var widened = NodePlanner.admitLoadBalancerSources(port, NODE);

    assertThat(widened.loadBalancerSourceRanges())
        .containsExactly("192.168.0.0/24", "203.0.113.0/25", "1.2.3.4/32", "5.6.7.8/32");
    assertThat(widened.restrictSources()).isTrue();
  }

  @Test
  void rangesThatAdmitNoNodeAddressStayAsWritten() {
    var port =
        service("ns1/svc1", "172.30.0.41", 80)
            .loadBalancerIps("1.2.3.4")
            .sourceRanges("203.0.113.0/25")
            .build();

    assertThat(NodePlanner.admitLoadBalancerSources(port, NODE)).isSameAs(port);
    assertThat(NodePlanner.admitLoadBalancerSources(port, List.of())).isSameAs(port);
  }

  @Test
  void anIpv6NodeAddressInAnIpv6RangeAdmitsTheIpv6LoadBalancerIp() {
    var port =
        service("ns1/svc1", "fd00:10:96::1", 80)
            .loadBalancerIps("2600:5200::9")
            .sourceRanges("2001:db8::/64")
            .build();

    assertThat(NodePlanner.admitLoadBalancerSources(port, NODE).loadBalancerSourceRanges())
        .containsExactly("2001:db8::/64", "2600:5200::9/128");
  }
}
