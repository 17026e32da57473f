package dev.proxima.controller.hints;

import static dev.proxima.controller.testing.Fixtures.ready;
import static dev.proxima.controller.testing.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.TrafficDistribution;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which slices each --slices value leaves to kube-controller-manager. */
class SliceScopeTest {
  @ParameterizedTest(name = "--slices={0}, server {1}, {2}: KCM slice left to KCM = {3}")
  @CsvSource({
    "ALL, 1.35, PreferClose, false",
    "UNMANAGED, 1.29, PreferSameNode, true",
    "AUTO, 1.30, PreferClose, false",
    "AUTO, 1.31, PreferClose, true",
    "AUTO, 1.34, PreferSameZone, false",
    "AUTO, 1.35, PreferSameZone, true",
    "AUTO, 1.35, PreferSameNode, true",
    "AUTO, 1.36, PreferSameNode, true",
    "AUTO, 2.0, PreferSameNode, true",
    "AUTO, unknown, PreferClose, false",
    "AUTO, unknown, Auto, true",
    "AUTO, 1.20, None, true",
  })
  void decidesWhoHintsKubeControllerManagersSlices(
      SliceScope.Slices slices, String version, String value, boolean leftToKcm) {
    var scope = new SliceScope(slices, ServerVersion.parse(version));
    var mode =
        switch (value) {
          case "Auto" -> HintMode.AUTO;
          case "None" -> HintMode.NONE;
          default -> HintMode.TRAFFIC_DISTRIBUTION;
        };
    var kcmSlice = slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"));

    assertThat(scope.leavesToKcm(kcmSlice, mode, TrafficDistribution.parse(value)))
        .isEqualTo(leftToKcm);
  }

  @ParameterizedTest(name = "--slices={0}: a {1} slice is always Proxima's")
  @CsvSource({
    "UNMANAGED, endpointslicemirroring-controller.k8s.io",
    "AUTO, my-controller",
    "AUTO, ''",
  })
  void slicesOthersManageAreAlwaysProximas(SliceScope.Slices slices, String managedBy) {
    var scope = new SliceScope(slices, Optional.of(new ServerVersion(1, 35)));
    var custom = slice("s1", "svc", ready("10.0.0.1", "zone-a", "n1"));
    custom
        .getMetadata()
        .setLabels(Map.of(Labels.SERVICE_NAME, "svc", Labels.MANAGED_BY, managedBy));

    assertThat(
            scope.leavesToKcm(
                custom, HintMode.TRAFFIC_DISTRIBUTION, TrafficDistribution.parse("PreferClose")))
        .isFalse();
  }

  @ParameterizedTest(name = "/version major={0} minor={1} is {2}")
  @CsvSource({"1, 31, 1.31", "1, 33+, 1.33", "1, 30-gke.1, 1.30", "'', 31, none", "1, x, none"})
  void readsTheVersionAsManagedOfferingsReportIt(String major, String minor, String expected) {
    assertThat(ServerVersion.parse(major, minor).map(Object::toString).orElse("none"))
        .isEqualTo(expected);
  }
}
