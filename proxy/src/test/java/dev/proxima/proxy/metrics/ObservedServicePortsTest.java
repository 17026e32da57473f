package dev.proxima.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.ObserveLocality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.testing.ServicePortFixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservedServicePortsTest {
  private static ServicePortName name(String namespace, String service, String port) {
    return new ServicePortName(new ObjectKey(namespace, service), port, Protocol.TCP);
  }

  private static ServicePort port(ServicePortName name, boolean optedIn) {
    var svc =
        ServicePortFixtures.service(name.service().toString(), "10.96.0.10", 80)
            .portName(name.port());
    return (optedIn ? svc.observeLocality() : svc).build();
  }

  @Test
  void annotatedModeCountsOnlyOptedInPorts() {
    var web = name("shop", "web", "http");
    var db = name("shop", "db", "sql");

    var chosen =
        ObservedServicePorts.choose(
            ObserveLocality.ANNOTATED, 10_000, List.of(port(web, true), port(db, false)));

    assertThat(chosen.counted()).containsExactly(web);
    assertThat(chosen.dropped()).isZero();
  }

  @Test
  void allModeCountsEveryPortOnceEvenWhenBothFamiliesListIt() {
    var web = name("shop", "web", "http");
    var db = name("shop", "db", "sql");

    var chosen =
        ObservedServicePorts.choose(
            ObserveLocality.ALL,
            10_000,
            List.of(port(web, false), port(db, false), port(web, false)));

    assertThat(chosen.counted()).containsExactly(db, web);
  }

  @Test
  void theCapKeepsTheFirstPortsInNamespaceNameAndPortOrderAndCountsTheRestAsDropped() {
    var a = name("a", "svc", "http");
    var bHttp = name("b", "svc", "http");
    var bMetrics = name("b", "svc", "metrics");
    var c = name("c", "svc", "http");
    int twoPorts = 2 * ObservedServicePorts.SERIES_PER_PORT + 1;

    var chosen =
        ObservedServicePorts.choose(
            ObserveLocality.ALL,
            twoPorts,
            List.of(port(c, true), port(bMetrics, true), port(a, true), port(bHttp, true)));

    assertThat(chosen.counted()).containsExactly(a, bHttp);
    assertThat(chosen.dropped()).isEqualTo(2);
  }

  @Test
  void aCapBelowOnePortsSeriesCountsNothingAndSaysSo() {
    var web = name("shop", "web", "http");

    var chosen =
        ObservedServicePorts.choose(ObserveLocality.ANNOTATED, 3, List.of(port(web, true)));

    assertThat(chosen.counted()).isEmpty();
    assertThat(chosen.dropped()).isEqualTo(1);
  }

  @Test
  void theModeParsesTheFlagValuesAndRejectsOthers() {
    assertThat(ObserveLocality.parse("annotated")).isEqualTo(ObserveLocality.ANNOTATED);
    assertThat(ObserveLocality.parse(" All ")).isEqualTo(ObserveLocality.ALL);
    assertThatThrownBy(() -> ObserveLocality.parse("some"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("annotated or all");
  }
}
