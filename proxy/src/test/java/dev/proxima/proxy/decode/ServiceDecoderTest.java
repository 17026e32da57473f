package dev.proxima.proxy.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.Annotations;
import dev.proxima.proxy.runtime.TrimOnDecode;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ServiceDecoderTest {
  private final KubernetesSerialization decoding = TrimOnDecode.serialization();
  private final DatabindAndTrim databind = new DatabindAndTrim();

  /** Every field the proxy's cache keeps of a Service, in the shapes tenants and the API write. */
  static Stream<String> validServices() {
    return Stream.of(
        service("{}", ""),
        "{\"apiVersion\": \"v1\", \"kind\": \"Service\"}",
        "{}",
        "{\"metadata\": null, \"spec\": null, \"status\": null}",
        service(
            "{\"type\": \"ClusterIP\", \"clusterIP\": \"None\", \"clusterIPs\": [\"None\"]}", ""),
        service(
            """
            {"type": "ClusterIP", "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10", "fd00::a"],
             "ipFamilies": ["IPv4", "IPv6"], "ipFamilyPolicy": "PreferDualStack",
             "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                       {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": "dns-tcp",
                        "appProtocol": "dns"}],
             "selector": {"k8s-app": "kube-dns"}, "internalTrafficPolicy": "Local",
             "trafficDistribution": "PreferSameZone"}
            """,
            ""),
        service(
            """
            {"type": "NodePort", "clusterIP": "10.96.0.11",
             "ports": [{"port": 80, "nodePort": 30080, "targetPort": 8080, "protocol": "TCP"},
                       {"port": 443, "nodePort": 30443, "protocol": "SCTP"}],
             "externalTrafficPolicy": "Local", "healthCheckNodePort": 32000,
             "sessionAffinity": "ClientIP",
             "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
             "publishNotReadyAddresses": true}
            """,
            ""),
        service(
            """
            {"type": "LoadBalancer", "clusterIP": "10.96.0.12", "externalIPs": ["192.0.2.7"],
             "loadBalancerIP": "198.51.100.1", "loadBalancerClass": "example.com/lb",
             "loadBalancerSourceRanges": ["203.0.113.0/24", "2001:db8::/32"],
             "allocateLoadBalancerNodePorts": false, "externalTrafficPolicy": "Cluster",
             "ports": [{"port": 80}]}
            """,
            """
            , "status": {"loadBalancer": {"ingress": [
                {"ip": "198.51.100.1", "ipMode": "Proxy",
                 "ports": [{"port": 80, "protocol": "TCP", "error": "Pending"}]},
                {"hostname": "lb.example.com"}, {"ip": "2001:db8::1", "ipMode": "VIP"}]},
              "conditions": [{"type": "LoadBalancerReady", "status": "True"}]}
            """),
        service("{\"type\": \"ExternalName\", \"externalName\": \"db.example.com\"}", ""),
        service(
            "{\"ports\": [{\"name\": null, \"port\": null, \"targetPort\": null}],"
                + " \"sessionAffinityConfig\": {\"clientIP\": null}}",
            ""),
        service(
            "{\"clusterIPs\": null, \"ports\": null, \"selector\": null, \"ipFamilies\": [],"
                + " \"externalIPs\": null, \"loadBalancerSourceRanges\": [],"
                + " \"sessionAffinityConfig\": {}}",
            ", \"status\": {\"loadBalancer\": {\"ingress\": null}}"),
        service("{\"ports\": [null, {\"port\": 80}]}", ""),
        // The coercions databind makes, which the decoders must make the same.
        service(
            "{\"clusterIP\": 10, \"ports\": [{\"port\": \"80\", \"nodePort\": \"30080\","
                + " \"targetPort\": \"8080\", \"name\": true}],"
                + " \"publishNotReadyAddresses\": \"true\", \"healthCheckNodePort\": \"32000\","
                + " \"allocateLoadBalancerNodePorts\": 1, \"selector\": {\"a\": 1, \"b\": null}}",
            ""),
        // A bare number is a client IP config of that timeout, to databind and so here.
        service("{\"sessionAffinityConfig\": {\"clientIP\": 600}}", ""),
        // Later duplicates win, in databind as here.
        service("{\"clusterIP\": \"10.0.0.1\", \"clusterIP\": \"10.0.0.2\"}", ""));
  }

  @ParameterizedTest
  @MethodSource("validServices")
  void aServiceIsDecodedEqualToWhatDatabindAndTheTrimMadeOfIt(String json) {
    var decoded = decoding.unmarshal(json, Service.class);

    assertThat(decoded).isEqualTo(databind.service(json));
  }

  @Test
  void metadataKeepsWhatTheTrimKeptAndOnlyTheLocalityOptInAmongAnnotations() {
    var json =
        """
        {"metadata": {"name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "42",
           "generation": 3, "creationTimestamp": "2026-11-25T04:00:00Z",
           "deletionTimestamp": "2026-11-25T05:00:00Z", "deletionGracePeriodSeconds": 30,
           "generateName": "web-", "selfLink": "/api/v1/x", "finalizers": ["a/b"],
           "labels": {"app": "web", "tier": "front"},
           "annotations": {"%s": "true", "example.com/note": "x"},
           "managedFields": [{"manager": "kubectl"}], "ownerReferences": [{"kind": "X"}]}}
        """
            .formatted(Annotations.OBSERVE_LOCALITY);

    var decoded = decoding.unmarshal(json, Service.class);

    assertThat(decoded).isEqualTo(databind.service(json));
    assertThat(decoded.getMetadata().getAnnotations())
        .containsOnlyKeys(Annotations.OBSERVE_LOCALITY);
    assertThat(decoded.getMetadata().getGeneration()).isEqualTo(3L);
    assertThat(decoded.getMetadata().getLabels()).containsEntry("tier", "front");
    assertThat(decoded.getMetadata().getManagedFields()).isEmpty();
  }

  @Test
  void unknownFieldsAreSkippedAtEveryLevelButMetadataWhichDatabindReads() {
    var known =
        service(
            "{\"clusterIP\": \"10.0.0.1\", \"ports\": [{\"port\": 80}],"
                + " \"sessionAffinityConfig\": {\"clientIP\": {\"timeoutSeconds\": 5}}}",
            ", \"status\": {\"loadBalancer\": {\"ingress\": [{\"ip\": \"192.0.2.1\"}]}}");
    var unknown = "\"future\": {\"nested\": [1, {\"x\": [true]}]}, ";
    var unknownInMetadata = known.replace("\"metadata\": {", "\"metadata\": {" + unknown);
    var unknownEverywhere =
        unknownInMetadata
            .replace("{\"clusterIP\"", "{" + unknown + "\"clusterIP\"")
            .replace("{\"port\"", "{" + unknown + "\"port\"")
            .replace("{\"timeoutSeconds\"", "{" + unknown + "\"timeoutSeconds\"")
            .replace("{\"clientIP\"", "{" + unknown + "\"clientIP\"")
            .replace("{\"ip\"", "{" + unknown + "\"ip\"")
            .replace("{\"ingress\"", "{" + unknown + "\"ingress\"")
            .replace("{\"loadBalancer\"", "{" + unknown + "\"loadBalancer\"")
            .replace("{\"apiVersion\"", "{" + unknown + "\"apiVersion\"");

    var decoded = decoding.unmarshal(unknownEverywhere, Service.class);

    assertThat(unknownEverywhere.split("future", -1)).hasSize(10);
    assertThat(decoded).isEqualTo(databind.service(unknownInMetadata));
    assertThat(decoded.getMetadata().getAdditionalProperties()).containsKey("future");
  }

  /** Wrong JSON types for fields the proxy keeps: databind refuses each, so must the decoder. */
  static Stream<String> hostileServices() {
    return Stream.of(
        "[]",
        "\"a service\"",
        service("\"a spec\"", ""),
        service("[]", ""),
        service("{\"clusterIP\": {\"a\": 1}}", ""),
        service("{\"clusterIP\": [\"10.0.0.1\"]}", ""),
        service("{\"clusterIPs\": \"10.0.0.1\"}", ""),
        service("{\"clusterIPs\": [{}]}", ""),
        service("{\"ports\": {\"port\": 80}}", ""),
        service("{\"ports\": [\"80\"]}", ""),
        service("{\"ports\": [{\"port\": \"eighty\"}]}", ""),
        service("{\"ports\": [{\"port\": 80.5}]}", ""),
        service("{\"ports\": [{\"port\": 4294967296}]}", ""),
        service("{\"ports\": [{\"targetPort\": true}]}", ""),
        service("{\"ports\": [{\"targetPort\": 4294967296}]}", ""),
        service("{\"ports\": [{\"targetPort\": {}}]}", ""),
        service("{\"selector\": [\"app\"]}", ""),
        service("{\"selector\": {\"app\": {\"x\": 1}}}", ""),
        service("{\"publishNotReadyAddresses\": \"maybe\"}", ""),
        service("{\"sessionAffinityConfig\": {\"clientIP\": {\"timeoutSeconds\": \"x\"}}}", ""),
        service("{}", ", \"status\": {\"loadBalancer\": {\"ingress\": {\"ip\": \"x\"}}}"),
        service("{}", ", \"status\": {\"loadBalancer\": {\"ingress\": [{\"ip\": []}]}}"),
        "{\"metadata\": {\"name\": {}}}",
        "{\"metadata\": {\"generation\": \"three\"}}",
        "{\"metadata\": {\"labels\": \"app=web\"}}",
        "{\"metadata\": {\"finalizers\": \"x\"}}",
        "{\"metadata\": \"web\"}",
        "{\"kind\": {}}",
        service("{\"clusterIP\": \"10.0.0.1\"", ""));
  }

  @ParameterizedTest
  @MethodSource("hostileServices")
  void aWrongTypeForAFieldTheProxyKeepsFailsTheDecodeAsDatabindDoes(String json) {
    assertThatThrownBy(() -> databind.service(json)).isInstanceOf(RuntimeException.class);

    assertThatThrownBy(() -> decoding.unmarshal(json, Service.class))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void wrongTypesInFieldsTheProxySkipsAreSkippedAsBefore() {
    var json =
        "{\"metadata\": {\"managedFields\": \"x\", \"ownerReferences\": 7},"
            + " \"status\": {\"conditions\": \"none\"}}";

    assertThat(decoding.unmarshal(json, Service.class)).isEqualTo(databind.service(json));
  }

  @Test
  void aHugeListOfPortsIsDecodedWhole() {
    var ports =
        IntStream.range(0, 50_000)
            .mapToObj(i -> "{\"port\": " + (i % 65535 + 1) + ", \"targetPort\": \"p" + i + "\"}")
            .collect(Collectors.joining(", ", "{\"ports\": [", "]}"));
    var json = service(ports, "");

    var decoded = decoding.unmarshal(json, Service.class);

    assertThat(decoded.getSpec().getPorts()).hasSize(50_000);
    assertThat(decoded).isEqualTo(databind.service(json));
  }

  @Test
  void nestingDeeperThanTheParserAllowsFailsInsideSkippedFieldsToo() {
    var deep = "[".repeat(5_000) + "]".repeat(5_000);
    var json = service("{\"future\": " + deep + "}", "");

    assertThatThrownBy(() -> databind.service(json)).isInstanceOf(RuntimeException.class);
    assertThatThrownBy(() -> decoding.unmarshal(json, Service.class))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void servicesInAListAndInAWatchEventAreDecodedTheSameWay() {
    var json = service("{\"clusterIP\": \"10.0.0.1\", \"ports\": [{\"port\": 80}]}", "");

    var list =
        decoding.unmarshal(
            "{\"apiVersion\": \"v1\", \"kind\": \"ServiceList\", \"items\": [" + json + "]}",
            ServiceList.class);
    var event =
        decoding.unmarshal("{\"type\": \"ADDED\", \"object\": " + json + "}", WatchEvent.class);

    assertThat(list.getItems()).containsExactly(databind.service(json));
    assertThat(event.getObject()).isEqualTo(databind.service(json));
  }

  private static String service(String spec, String rest) {
    return """
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
         "spec": %s%s}
        """
        .formatted(spec, rest);
  }
}
