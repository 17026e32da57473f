package dev.proxima.proxy.track;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ObjectVersionsTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");

  private static Service service(String name, String resourceVersion) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  private static EndpointSlice slice(String name, String service, String resourceVersion) {
    var labels = new HashMap<String, String>();
    if (service != null) {
      labels.put(Labels.SERVICE_NAME, service);
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .withLabels(labels)
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .withAddressType("IPv4")
        .build();
  }

  static List<Arguments> keysAndTheirStamps() {
    return List.of(
        Arguments.of(
            "a Service alone: its resourceVersion",
            List.of(service("web", "7")),
            List.of(),
            Map.of(WEB, "7")),
        Arguments.of(
            "its slices follow in name order, whatever order the cache lists them in",
            List.of(service("web", "7")),
            List.of(slice("web-b", "web", "12"), slice("web-a", "web", "9")),
            Map.of(WEB, "7 web-a=9 web-b=12")),
        Arguments.of(
            "slices without their Service still make a key, so the Service's arrival is a change",
            List.of(),
            List.of(slice("web-a", "web", "9")),
            Map.of(WEB, "- web-a=9")),
        Arguments.of(
            "a slice without the service-name label belongs to no key",
            List.of(service("web", "7")),
            List.of(slice("stray", null, "3")),
            Map.of(WEB, "7")),
        Arguments.of(
            "a Service without a resourceVersion cannot be stamped, slices or not",
            List.of(service("web", null)),
            List.of(slice("web-a", "web", "9")),
            mapWithNull(WEB)),
        Arguments.of(
            "nor a slice whose resourceVersion holds a blank or an equals sign",
            List.of(service("web", "7")),
            List.of(slice("web-a", "web", "9 x=1")),
            mapWithNull(WEB)),
        Arguments.of(
            "an empty resourceVersion neither",
            List.of(service("web", "7")),
            List.of(slice("web-a", "web", "")),
            mapWithNull(WEB)));
  }

  private static Map<ObjectKey, String> mapWithNull(ObjectKey key) {
    var map = new HashMap<ObjectKey, String>();
    map.put(key, null);
    return map;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keysAndTheirStamps")
  void stampsEachServiceKeyWithItsObjectsRevisions(
      String why, List<Service> services, List<EndpointSlice> slices, Map<ObjectKey, String> want) {
    assertThat(ObjectVersions.of(services, slices)).isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keysAndTheirStamps")
  void oneKeysStampIsTheSameAsInTheWholeMap(
      String why, List<Service> services, List<EndpointSlice> slices, Map<ObjectKey, String> want) {
    var service = services.isEmpty() ? null : services.get(0);
    var owned =
        slices.stream()
            .filter(s -> "web".equals(s.getMetadata().getLabels().get(Labels.SERVICE_NAME)))
            .toList();
    assertThat(ObjectVersions.stamp(service, owned)).isEqualTo(want.get(WEB));
  }

  @Test
  void nothingLeftOfAKeyHasNoStamp() {
    assertThat(ObjectVersions.stamp(null, List.of())).isNull();
  }
}
