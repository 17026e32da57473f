package dev.proxima.model.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import org.junit.jupiter.api.Test;

class CachedObjectsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SLICE =
      """
      {"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
       "metadata":{"name":"web-abcde","namespace":"shop","resourceVersion":"7",
         "labels":{"kubernetes.io/service-name":"web","endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"},
         "ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"u1"}],
         "managedFields":[{"manager":"kube-controller-manager","operation":"Update"}]},
       "addressType":"IPv4",
       "ports":[{"name":"http","port":8080,"protocol":"TCP"}],
       "endpoints":[
         {"addresses":["10.0.0.1"],"conditions":{"ready":true},"zone":"zone-a","nodeName":"node-1",
          "hints":{"forZones":[{"name":"zone-a"}]},
          "targetRef":{"kind":"Pod","namespace":"shop","name":"web-1"},"unknownField":"kept"},
         {"addresses":["10.0.0.2"],"conditions":{"ready":false},"zone":"zone-b","nodeName":"node-2"}]}
      """;

  private static final String SERVICE =
      """
      {"apiVersion":"v1","kind":"Service",
       "metadata":{"name":"web","namespace":"shop","annotations":{"a":"b"}},
       "spec":{"type":"ClusterIP","clusterIP":"10.96.0.1","clusterIPs":["10.96.0.1"],
         "ipFamilies":["IPv4"],"selector":{"app":"web"},"trafficDistribution":"PreferSameZone",
         "ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080}]},
       "status":{"loadBalancer":{}}}
      """;

  @Test
  void aCompactedSliceEqualsTheOriginalAndSerializesTheSame() throws Exception {
    var original = JSON.readValue(SLICE, EndpointSlice.class);
    var compacted = CachedObjects.compact(JSON.readValue(SLICE, EndpointSlice.class));

    assertThat(compacted).isEqualTo(original);
    assertThat(JSON.readTree(JSON.writeValueAsString(compacted)))
        .isEqualTo(JSON.readTree(JSON.writeValueAsString(original)));
    assertThat(compacted.getEndpoints().get(0).getAdditionalProperties())
        .containsEntry("unknownField", "kept");
  }

  @Test
  void aCompactedServiceEqualsTheOriginalAndSerializesTheSame() throws Exception {
    var original = JSON.readValue(SERVICE, Service.class);
    var compacted = CachedObjects.compact(JSON.readValue(SERVICE, Service.class));

    assertThat(compacted).isEqualTo(original);
    assertThat(JSON.readTree(JSON.writeValueAsString(compacted)))
        .isEqualTo(JSON.readTree(JSON.writeValueAsString(original)));
  }

  @Test
  void stringsEveryEndpointRepeatsAreSharedAcrossObjects() throws Exception {
    var first = CachedObjects.compact(JSON.readValue(SLICE, EndpointSlice.class));
    var second = CachedObjects.compact(JSON.readValue(SLICE, EndpointSlice.class));

    var a = first.getEndpoints().get(0);
    var b = second.getEndpoints().get(0);
    assertThat(a.getZone()).isSameAs(b.getZone());
    assertThat(a.getNodeName()).isSameAs(b.getNodeName());
    assertThat(a.getHints().getForZones().get(0).getName())
        .isSameAs(b.getHints().getForZones().get(0).getName());
    assertThat(first.getMetadata().getNamespace()).isSameAs(second.getMetadata().getNamespace());
    assertThat(first.getEndpoints().get(1).getAdditionalProperties())
        .isSameAs(second.getEndpoints().get(1).getAdditionalProperties());
  }

  @Test
  void objectsWithMissingPartsAreCompactedAsTheyAre() throws Exception {
    // An informer store must not throw on what the API server sends, or the informer stalls.
    var bareSlice = new EndpointSlice();
    bareSlice.setMetadata(null);
    bareSlice.setEndpoints(null);
    bareSlice.setPorts(null);
    var sparseSlice =
        JSON.readValue(
            "{\"metadata\":{\"name\":\"s\",\"labels\":null},\"endpoints\":[{\"addresses\":null}]}",
            EndpointSlice.class);
    var bareService = new Service();
    bareService.setMetadata(null);
    bareService.setSpec(null);
    bareService.setStatus(null);
    var sparseService = JSON.readValue("{\"spec\":{\"ports\":null},\"status\":{}}", Service.class);

    var compactedBare = CachedObjects.compact(bareSlice);
    assertThat(compactedBare.getMetadata()).isNull();
    assertThat(compactedBare.getEndpoints()).isNull();
    assertThat(compactedBare.getPorts()).isNull();
    assertThat(CachedObjects.compact(sparseSlice).getEndpoints().get(0).getAddresses()).isNull();
    assertThat(CachedObjects.compact(bareService).getSpec()).isNull();
    assertThat(CachedObjects.compact(sparseService).getSpec().getPorts()).isNull();
  }

  @Test
  void builderCopiesOfACompactedSliceCanBeChangedFreely() throws Exception {
    var cached = CachedObjects.compact(JSON.readValue(SLICE, EndpointSlice.class));

    var copy = new EndpointSliceBuilder(cached).build();
    copy.getMetadata().getLabels().put("extra", "label");
    copy.getMetadata().getFinalizers().add("example.com/finalizer");
    var endpoint = copy.getEndpoints().get(1);
    endpoint.getAddresses().add("10.0.0.3");
    endpoint.getAdditionalProperties().put("x", "y");
    endpoint.getDeprecatedTopology().put("k", "v");
    copy.getEndpoints().get(0).getHints().getForZones().add(new ForZone("zone-b"));

    assertThat(cached).isEqualTo(JSON.readValue(SLICE, EndpointSlice.class));
  }
}
