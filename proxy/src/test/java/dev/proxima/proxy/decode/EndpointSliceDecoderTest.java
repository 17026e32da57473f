package dev.proxima.proxy.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.Annotations;
import dev.proxima.proxy.runtime.TrimOnDecode;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EndpointSliceDecoderTest {
  private final KubernetesSerialization decoding = TrimOnDecode.serialization();
  private final DatabindAndTrim databind = new DatabindAndTrim();

  /** Every condition combination: each of ready, serving, terminating true, false or unset. */
  static Stream<String> everyConditionCombination() {
    var values = new String[] {"true", "false", null};
    var endpoints = new ArrayList<String>();
    for (var ready : values) {
      for (var serving : values) {
        for (var terminating : values) {
          var fields = new ArrayList<String>();
          if (ready != null) {
            fields.add("\"ready\": " + ready);
          }
          if (serving != null) {
            fields.add("\"serving\": " + serving);
          }
          if (terminating != null) {
            fields.add("\"terminating\": " + terminating);
          }
          endpoints.add(
              "{\"addresses\": [\"10.0.0."
                  + (endpoints.size() + 1)
                  + "\"], \"conditions\": {"
                  + String.join(", ", fields)
                  + "}}");
        }
      }
    }
    return Stream.of(slice("\"IPv4\"", "[]", String.join(", ", endpoints)));
  }

  static Stream<String> validSlices() {
    return Stream.concat(
        everyConditionCombination(),
        Stream.of(
            "{}",
            "{\"metadata\": null, \"ports\": null, \"endpoints\": null, \"addressType\": null}",
            slice("\"IPv4\"", "[]", ""),
            slice(
                "\"IPv4\"",
                "[{\"name\": \"http\", \"port\": 8080, \"protocol\": \"TCP\","
                    + " \"appProtocol\": \"http\"}, {\"name\": null, \"port\": null},"
                    + " {\"name\": \"\", \"port\": 53, \"protocol\": \"UDP\"}]",
                """
                {"addresses": ["10.0.0.1"], "conditions": {"ready": true, "serving": true,
                   "terminating": false}, "zone": "zone-a", "nodeName": "node-1",
                 "hostname": "pod-1", "targetRef": {"kind": "Pod", "name": "pod-1"},
                 "deprecatedTopology": {"a": "b"},
                 "hints": {"forZones": [{"name": "zone-a"}, {"name": "zone-b"}],
                           "forNodes": [{"name": "node-1"}]}},
                {"addresses": ["10.0.0.2", "10.0.0.3"], "conditions": {},
                 "hints": {"forZones": []}},
                {"addresses": [], "conditions": null, "hints": null, "zone": null},
                {"addresses": null, "hints": {"forZones": null, "forNodes": [{"name": null}]}},
                {}
                """),
            slice("\"IPv6\"", "[{\"port\": 443}]", "{\"addresses\": [\"fd00::1\"]}"),
            slice("\"FQDN\"", "[{\"port\": 443}]", "{\"addresses\": [\"db.example.com\"]}"),
            slice("\"IPv4\"", "[null]", "null, {\"addresses\": [\"10.0.0.1\"]}"),
            slice("\"IPv4\"", "[]", "{\"hints\": {\"forZones\": [null]}}"),
            slice("\"IPv4\"", "[]", "{\"addresses\": [null, \"10.0.0.1\"]}"),
            // The coercions databind makes; a zone or node hint from a bare name is its too.
            slice("\"IPv4\"", "[]", "{\"hints\": {\"forZones\": [\"a\"], \"forNodes\": [\"n\"]}}"),
            slice(
                "4",
                "[{\"port\": \"8080\", \"name\": 7}]",
                "{\"addresses\": [10], \"conditions\": {\"ready\": \"true\", \"serving\": 0},"
                    + " \"zone\": 1, \"hints\": {\"forZones\": [{\"name\": false}]}}")));
  }

  @ParameterizedTest
  @MethodSource("validSlices")
  void aSliceIsDecodedEqualToWhatDatabindAndTheTrimMadeOfIt(String json) {
    var decoded = decoding.unmarshal(json, EndpointSlice.class);

    assertThat(decoded).isEqualTo(databind.slice(json));
  }

  @Test
  void equalConditionsAreSharedAndOnlyTheTriggerTimeAnnotationIsKept() {
    var json =
        """
        {"metadata": {"name": "web-abcde", "namespace": "shop",
           "labels": {"kubernetes.io/service-name": "web"},
           "annotations": {"%s": "2026-11-25T05:00:00Z", "example.com/other": "x"}},
         "addressType": "IPv4",
         "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}},
                       {"addresses": ["10.0.0.2"], "conditions": {"ready": true}}]}
        """
            .formatted(Annotations.LAST_CHANGE_TRIGGER_TIME);

    var decoded = decoding.unmarshal(json, EndpointSlice.class);

    assertThat(decoded).isEqualTo(databind.slice(json));
    assertThat(decoded.getMetadata().getAnnotations())
        .containsOnlyKeys(Annotations.LAST_CHANGE_TRIGGER_TIME);
    assertThat(decoded.getEndpoints().get(0).getConditions())
        .isSameAs(decoded.getEndpoints().get(1).getConditions());
  }

  @Test
  void unknownFieldsAreSkippedAtEveryLevelButMetadataWhichDatabindReads() {
    var known =
        slice(
            "\"IPv4\"",
            "[{\"port\": 80}]",
            "{\"addresses\": [\"10.0.0.1\"], \"conditions\": {\"ready\": true},"
                + " \"hints\": {\"forZones\": [{\"name\": \"a\"}],"
                + " \"forNodes\": [{\"name\": \"n\"}]}}");
    var unknown = "\"future\": {\"nested\": [1, {\"x\": [true]}]}, ";
    var unknownInMetadata = known.replace("\"metadata\": {", "\"metadata\": {" + unknown);
    var unknownEverywhere =
        unknownInMetadata
            .replace("{\"port\"", "{" + unknown + "\"port\"")
            .replace("{\"addresses\"", "{" + unknown + "\"addresses\"")
            .replace("{\"ready\"", "{" + unknown + "\"ready\"")
            .replace("{\"forZones\"", "{" + unknown + "\"forZones\"")
            .replace("{\"name\": \"a\"", "{" + unknown + "\"name\": \"a\"")
            .replace("{\"name\": \"n\"", "{" + unknown + "\"name\": \"n\"")
            .replace("{\"apiVersion\"", "{" + unknown + "\"apiVersion\"");

    var decoded = decoding.unmarshal(unknownEverywhere, EndpointSlice.class);

    assertThat(unknownEverywhere.split("future", -1)).hasSize(9);
    assertThat(decoded).isEqualTo(databind.slice(unknownInMetadata));
    assertThat(decoded.getMetadata().getAdditionalProperties()).containsKey("future");
  }

  static Stream<String> hostileSlices() {
    return Stream.of(
        "[]",
        "7",
        slice("{}", "[]", ""),
        slice("[\"IPv4\"]", "[]", ""),
        slice("\"IPv4\"", "{}", ""),
        slice("\"IPv4\"", "[7]", ""),
        slice("\"IPv4\"", "[{\"port\": \"http\"}]", ""),
        slice("\"IPv4\"", "[{\"port\": 1.5}]", ""),
        slice("\"IPv4\"", "[{\"port\": 99999999999}]", ""),
        slice("\"IPv4\"", "[{\"name\": [\"http\"]}]", ""),
        "{\"endpoints\": {\"addresses\": [\"10.0.0.1\"]}}",
        slice("\"IPv4\"", "[]", "\"10.0.0.1\""),
        slice("\"IPv4\"", "[]", "{\"addresses\": \"10.0.0.1\"}"),
        slice("\"IPv4\"", "[]", "{\"addresses\": [{\"ip\": \"10.0.0.1\"}]}"),
        slice("\"IPv4\"", "[]", "{\"conditions\": {\"ready\": \"yes\"}}"),
        slice("\"IPv4\"", "[]", "{\"conditions\": {\"ready\": [true]}}"),
        slice("\"IPv4\"", "[]", "{\"conditions\": true}"),
        slice("\"IPv4\"", "[]", "{\"zone\": {\"name\": \"a\"}}"),
        slice("\"IPv4\"", "[]", "{\"nodeName\": [\"n\"]}"),
        slice("\"IPv4\"", "[]", "{\"hints\": []}"),
        slice("\"IPv4\"", "[]", "{\"hints\": {\"forZones\": {\"name\": \"a\"}}}"),
        slice("\"IPv4\"", "[]", "{\"hints\": {\"forNodes\": [{\"name\": {}}]}}"),
        "{\"metadata\": {\"annotations\": [\"x\"]}}",
        "{\"metadata\": {\"labels\": {\"a\": [\"b\"]}}}",
        slice("\"IPv4\"", "[]", "{\"addresses\": [\"10.0.0.1\"]"));
  }

  @ParameterizedTest
  @MethodSource("hostileSlices")
  void aWrongTypeForAFieldTheProxyKeepsFailsTheDecodeAsDatabindDoes(String json) {
    assertThatThrownBy(() -> databind.slice(json)).isInstanceOf(RuntimeException.class);

    assertThatThrownBy(() -> decoding.unmarshal(json, EndpointSlice.class))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void wrongTypesInFieldsTheProxySkipsAreSkippedAsBefore() {
    var json =
        slice(
            "\"IPv4\"",
            "[]",
            "{\"addresses\": [\"10.0.0.1\"], \"targetRef\": \"pod\", \"hostname\": {},"
                + " \"deprecatedTopology\": [1]}");

    assertThat(decoding.unmarshal(json, EndpointSlice.class)).isEqualTo(databind.slice(json));
  }

  @Test
  void aHugeSliceIsDecodedWhole() {
    var endpoints =
        IntStream.range(0, 20_000)
            .mapToObj(
                i ->
                    "{\"addresses\": [\"10.1."
                        + i / 250
                        + "."
                        + i % 250
                        + "\"], \"conditions\": {\"ready\": "
                        + (i % 2 == 0)
                        + "}, \"zone\": \"z"
                        + i % 3
                        + "\", \"hints\": {\"forZones\": [{\"name\": \"z"
                        + i % 3
                        + "\"}]}}")
            .collect(Collectors.joining(", "));
    var json = slice("\"IPv4\"", "[{\"port\": 80}]", endpoints);

    var decoded = decoding.unmarshal(json, EndpointSlice.class);

    assertThat(decoded.getEndpoints()).hasSize(20_000);
    assertThat(decoded).isEqualTo(databind.slice(json));
  }

  @Test
  void slicesInAListAndInAWatchEventAreDecodedTheSameWay() {
    var json = slice("\"IPv4\"", "[{\"port\": 80}]", "{\"addresses\": [\"10.0.0.1\"]}");

    var list =
        decoding.unmarshal(
            "{\"apiVersion\": \"discovery.k8s.io/v1\", \"kind\": \"EndpointSliceList\","
                + " \"items\": ["
                + json
                + "]}",
            EndpointSliceList.class);
    var event =
        decoding.unmarshal("{\"type\": \"MODIFIED\", \"object\": " + json + "}", WatchEvent.class);

    assertThat(list.getItems()).containsExactly(databind.slice(json));
    assertThat(event.getObject()).isEqualTo(databind.slice(json));
  }

  private static String slice(String addressType, String ports, String endpoints) {
    return """
        {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
         "metadata": {"name": "web-abcde", "namespace": "shop",
           "labels": {"kubernetes.io/service-name": "web"}},
         "addressType": %s, "ports": %s, "endpoints": [%s]}
        """
        .formatted(addressType, ports, endpoints);
  }
}
