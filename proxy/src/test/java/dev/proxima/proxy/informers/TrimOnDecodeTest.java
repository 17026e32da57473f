package dev.proxima.proxy.informers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrimOnDecodeTest {
  private static final String SERVICE =
      """
      {"apiVersion": "v1", "kind": "Service",
       "metadata": {"name": "web", "namespace": "shop",
         "annotations": {"example.com/note": "x", "%s": "true"},
         "managedFields": [{"manager": "kubectl", "operation": "Apply"}]},
       "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.1", "clusterIPs": ["10.96.0.1"],
         "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}]},
       "status": {"conditions": [{"type": "x", "status": "True"}]}}
      """
          .formatted(Annotations.OBSERVE_LOCALITY);

  private static final String SLICE =
      """
      {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
       "metadata": {"name": "web-abcde", "namespace": "shop",
         "labels": {"kubernetes.io/service-name": "web"},
         "annotations": {"%s": "2026-11-22T05:00:00Z", "example.com/other": "x"},
         "ownerReferences": [{"kind": "Service", "name": "web"}]},
       "addressType": "IPv4",
       "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
       "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true},
         "zone": "zone-a", "nodeName": "node-1", "hints": {"forZones": [{"name": "zone-a"}]},
         "targetRef": {"kind": "Pod", "name": "web-1"}}]}
      """
          .formatted(Annotations.LAST_CHANGE_TRIGGER_TIME);

  private final KubernetesSerialization trimming = TrimOnDecode.serialization();
  private final KubernetesSerialization plain = new KubernetesSerialization();

  @Test
  void everyServiceOfADecodedListIsTheOneTheCacheWouldKeep() {
    var list = trimming.unmarshal(list("ServiceList", "v1", SERVICE), ServiceList.class);

    var expected = plain.unmarshal(SERVICE, Service.class);
    ProxyCacheTrim.service(expected);
    assertThat(list.getItems()).hasSize(2).allSatisfy(s -> assertThat(s).isEqualTo(expected));
    var service = list.getItems().get(0);
    assertThat(service.getMetadata().getManagedFields()).isEmpty();
    assertThat(service.getMetadata().getAnnotations())
        .containsOnlyKeys(Annotations.OBSERVE_LOCALITY);
    assertThat(service.getStatus().getConditions()).isEmpty();
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(80);
  }

  @Test
  void everySliceOfADecodedListIsTheOneTheCacheWouldKeep() {
    var list =
        trimming.unmarshal(
            list("EndpointSliceList", "discovery.k8s.io/v1", SLICE), EndpointSliceList.class);

    var expected = plain.unmarshal(SLICE, EndpointSlice.class);
    ProxyCacheTrim.slice(expected);
    assertThat(list.getItems()).hasSize(2).allSatisfy(s -> assertThat(s).isEqualTo(expected));
    var endpoint = list.getItems().get(0).getEndpoints().get(0);
    assertThat(endpoint.getTargetRef()).isNull();
    assertThat(endpoint.getZone()).isEqualTo("zone-a");
    assertThat(endpoint.getHints().getForZones()).hasSize(1);
    assertThat(list.getItems().get(0).getMetadata().getAnnotations())
        .containsOnlyKeys(Annotations.LAST_CHANGE_TRIGGER_TIME);
  }

  @Test
  void aServiceTheTrimCannotHandleIsStillDecoded() {
    // A null port makes the compaction throw; decoding must not fail because of the trim.
    var hostile = SERVICE.replace("\"ports\": [", "\"ports\": [null, ");

    var service = trimming.unmarshal(hostile, Service.class);

    assertThat(service.getSpec().getPorts()).hasSize(2).first().isNull();
    assertThat(service.getSpec().getClusterIP()).isEqualTo("10.96.0.1");
  }

  @Test
  void otherKindsAreDecodedWholeButForTheirBookkeeping() {
    var cidr =
        trimming.unmarshal(
            """
            {"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
             "metadata": {"name": "default", "labels": {"team": "net"},
               "annotations": {"example.com/note": "x"},
               "managedFields": [{"manager": "kube-apiserver", "operation": "Update"}],
               "ownerReferences": [{"kind": "Cluster", "name": "c"}]},
             "spec": {"cidrs": ["10.96.0.0/16"]}}
            """,
            ServiceCIDR.class);

    assertThat(cidr.getMetadata().getAnnotations()).containsOnlyKeys("example.com/note");
    assertThat(cidr.getMetadata().getLabels()).containsOnlyKeys("team");
    assertThat(cidr.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cidr.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(cidr.getSpec().getCidrs()).containsExactly("10.96.0.0/16");
  }

  @Test
  void aNodeIsDecodedToWhatTheProxyReadsWithoutItsImagesOrConditions() {
    var node =
        trimming.unmarshal(
            """
            {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": "node-1",
               "labels": {"topology.kubernetes.io/zone": "a", "kubernetes.io/os": "linux"},
               "annotations": {"example.com/note": "x"},
               "managedFields": [{"manager": "kubelet", "operation": "Update"}]},
             "spec": {"podCIDRs": ["10.244.1.0/24"], "providerID": "cloud://1",
               "taints": [{"key": "ToBeDeletedByClusterAutoscaler", "effect": "NoSchedule"}]},
             "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.3"}],
               "images": [{"names": ["registry/app:1"], "sizeBytes": 100}],
               "conditions": [{"type": "Ready", "status": "True"}],
               "nodeInfo": {"kubeletVersion": "v1.31.0"},
               "capacity": {"cpu": "4"}}}
            """,
            Node.class);

    assertThat(node.getMetadata().getName()).isEqualTo("node-1");
    assertThat(node.getMetadata().getLabels()).containsOnlyKeys("topology.kubernetes.io/zone");
    assertThat(node.getMetadata().getAnnotations()).isEmpty();
    assertThat(node.getSpec().getPodCIDRs()).containsExactly("10.244.1.0/24");
    assertThat(node.getSpec().getTaints()).hasSize(1);
    assertThat(node.getSpec().getProviderID()).isNull();
    assertThat(node.getStatus().getAddresses()).hasSize(1);
    assertThat(node.getStatus().getImages()).isNullOrEmpty();
    assertThat(node.getStatus().getConditions()).isNullOrEmpty();
    assertThat(node.getStatus().getNodeInfo()).isNull();
    assertThat(node.getStatus().getCapacity()).isNullOrEmpty();
  }

  @Test
  void skippedFieldsAreStillWrittenWhenAnObjectIsSerialized() {
    // Skipping is for decoding only; an object built in code keeps every field in its JSON.
    var json =
        trimming.asJson(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .addNewManagedField()
                .withManager("kubelet")
                .endManagedField()
                .endMetadata()
                .build());

    assertThat(json).contains("\"managedFields\"", "\"kubelet\"");
  }

  @ParameterizedTest
  @CsvSource({
    "ADDED, v1, Service, io.fabric8.kubernetes.api.model.Service",
    "MODIFIED, discovery.k8s.io/v1, EndpointSlice,"
        + " io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice",
    "DELETED, v1, Node, io.fabric8.kubernetes.api.model.Node",
    "ADDED, networking.k8s.io/v1, ServiceCIDR,"
        + " io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDR",
    "BOOKMARK, v1, Service, io.fabric8.kubernetes.api.model.Service",
  })
  void aWatchEventOfEachWatchedKindCarriesItsOwnClass(
      String type, String apiVersion, String kind, Class<?> expected) {
    var event =
        trimming.unmarshal(
            """
            {"type": "%s", "object": {"apiVersion": "%s", "kind": "%s",
             "metadata": {"name": "x", "resourceVersion": "9"}}}
            """
                .formatted(type, apiVersion, kind),
            WatchEvent.class);

    assertThat(event.getObject()).isExactlyInstanceOf(expected);
    assertThat(((HasMetadata) event.getObject()).getMetadata().getResourceVersion()).isEqualTo("9");
  }

  @Test
  void theStatusOfAWatchErrorIsAStatusSoTheInformerListsAgain() {
    // fabric8 relists on a 410 only when the ERROR event's object decodes as a Status.
    var event =
        trimming.unmarshal(
            """
            {"type": "ERROR", "object": {"apiVersion": "v1", "kind": "Status",
             "status": "Failure", "reason": "Expired", "code": 410,
             "message": "too old resource version: 1 (5)"}}
            """,
            WatchEvent.class);

    assertThat(event.getObject()).isInstanceOf(Status.class);
    assertThat(((Status) event.getObject()).getCode()).isEqualTo(410);
  }

  @Test
  void aKindTheProxyDoesNotWatchIsNotLookedUpOnTheClassPath() {
    // The price of not searching: a kind outside WATCHED_KINDS stays generic (fabric8's default
    // serialization would make it a Pod). The proxy watches no other kind.
    var event =
        trimming.unmarshal(
            """
            {"type": "ADDED", "object": {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "x"}}}
            """,
            WatchEvent.class);

    assertThat(event.getObject()).isExactlyInstanceOf(GenericKubernetesResource.class);
  }

  private static String list(String kind, String apiVersion, String item) {
    return """
        {"apiVersion": "%s", "kind": "%s", "metadata": {"resourceVersion": "7"},
         "items": [%s, %s]}
        """
        .formatted(apiVersion, kind, item, item);
  }
}
