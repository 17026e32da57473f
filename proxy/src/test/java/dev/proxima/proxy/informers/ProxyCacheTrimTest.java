package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.track.Projections;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyCacheTrimTest {
  @Test
  void dropsWhatTheProxyNeverReads() {
    var slice = slice();
    var service = service();

    ProxyCacheTrim.slice(slice);
    ProxyCacheTrim.service(service);

    assertThat(slice.getMetadata().getManagedFields()).isEmpty();
    assertThat(slice.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(slice.getMetadata().getAnnotations())
        .containsOnlyKeys(Annotations.LAST_CHANGE_TRIGGER_TIME);
    assertThat(slice.getEndpoints().get(0).getTargetRef()).isNull();
    assertThat(service.getMetadata().getManagedFields()).isEmpty();
    assertThat(service.getMetadata().getAnnotations()).isEmpty();
  }

  @Test
  void keepsTheLocalityOptInOfAServiceAndNothingElse() {
    var service = service();
    service
        .getMetadata()
        .setAnnotations(Map.of(Annotations.OBSERVE_LOCALITY, "true", "example.com/note", "x"));

    ProxyCacheTrim.service(service);

    assertThat(service.getMetadata().getAnnotations())
        .containsExactlyEntriesOf(Map.of(Annotations.OBSERVE_LOCALITY, "true"));
  }

  @Test
  void aLocalityOptInOtherThanTrueIsDropped() {
    var service = service();
    service.getMetadata().setAnnotations(Map.of(Annotations.OBSERVE_LOCALITY, "yes"));

    ProxyCacheTrim.service(service);

    assertThat(service.getMetadata().getAnnotations()).isEmpty();
  }

  @Test
  void endpointsWithEqualConditionsShareOneConditionsObject() {
    var first = slice();
    var second = slice();
    var unset = slice();
    unset.getEndpoints().get(0).setConditions(new EndpointConditions(null, null, null));

    ProxyCacheTrim.slice(first);
    ProxyCacheTrim.slice(second);
    ProxyCacheTrim.slice(unset);

    var conditions = first.getEndpoints().get(0).getConditions();
    assertThat(second.getEndpoints().get(0).getConditions())
        .isSameAs(conditions)
        .isEqualTo(slice().getEndpoints().get(0).getConditions());
    assertThat(unset.getEndpoints().get(0).getConditions())
        .isNotSameAs(conditions)
        .isEqualTo(new EndpointConditions(null, null, null));
  }

  @Test
  void objectsWithoutMetadataStatusOrEndpointsAreTrimmedWithoutFailing() {
    // The informer store runs this on whatever arrives; throwing there would stall the informer.
    var slice = new EndpointSlice();
    slice.setMetadata(null);
    slice.setEndpoints(null);
    var service = new Service();
    service.setMetadata(null);
    service.setSpec(null);

    ProxyCacheTrim.slice(slice);
    ProxyCacheTrim.service(service);

    assertThat(slice.getEndpoints()).isNull();
    assertThat(service.getStatus()).isNull();
  }

  @Test
  void anObjectAlreadyTrimmedIsNotTrimmedAgain() {
    // Objects are trimmed as they are decoded and again when cached; the second pass does no work.
    var service = service();
    ProxyCacheTrim.service(service);
    service.getMetadata().setAnnotations(Map.of("example.com/note", "x"));

    ProxyCacheTrim.service(service);

    assertThat(service.getMetadata().getAnnotations()).containsOnlyKeys("example.com/note");
    assertThat(service.getAdditionalProperties()).isEmpty();
    assertThat(service).isEqualTo(new ServiceBuilder(service).build());
  }

  @Test
  void keepsEverythingTheChangeTrackersAndThePlannerRead() {
    var slice = slice();
    var service = service();
    var node = new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build();
    var before =
        NodePlanner.plan(
            IpFamily.IPV4,
            "node-1",
            node,
            null,
            List.of(service),
            List.of(slice),
            AddressPolicy.ofNode(node),
            ZoneDemand.unknown());
    var sliceBefore = Projections.of(slice);
    var serviceBefore = Projections.of(service);

    ProxyCacheTrim.slice(slice);
    ProxyCacheTrim.service(service);

    assertThat(Projections.of(slice)).isEqualTo(sliceBefore);
    assertThat(Projections.of(service)).isEqualTo(serviceBefore);
    assertThat(
            NodePlanner.plan(
                IpFamily.IPV4,
                "node-1",
                node,
                null,
                List.of(service),
                List.of(slice),
                AddressPolicy.ofNode(node),
                ZoneDemand.unknown()))
        .isEqualTo(before);
  }

  private static EndpointSlice slice() {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web-abcde")
        .withLabels(Map.of("kubernetes.io/service-name", "web"))
        .withAnnotations(
            Map.of(
                Annotations.LAST_CHANGE_TRIGGER_TIME,
                "2026-11-22T05:00:00Z",
                "example.com/other",
                "x"))
        .withOwnerReferences(
            new OwnerReferenceBuilder().withKind("Service").withName("web").build())
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kcm").build())
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .addNewEndpoint()
        .withAddresses("10.0.0.1")
        .withNewConditions()
        .withReady(true)
        .endConditions()
        .withZone("zone-a")
        .withNodeName("node-1")
        .withNewHints()
        .addNewForZone("zone-a")
        .endHints()
        .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName("web-1").build())
        .endEndpoint()
        .build();
  }

  private static Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withAnnotations(Map.of("example.com/note", "x"))
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").build())
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withClusterIP("10.96.0.1")
        .withClusterIPs("10.96.0.1")
        .withIpFamilies("IPv4")
        .withTrafficDistribution("PreferSameZone")
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .withNewTargetPort(8080)
        .endPort()
        .endSpec()
        .build();
  }
}
