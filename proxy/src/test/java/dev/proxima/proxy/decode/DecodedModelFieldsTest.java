package dev.proxima.proxy.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.ClientIPConfig;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.PortStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.api.model.SessionAffinityConfig;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The hand-written decoders name each field of the model they read; a fabric8 upgrade that adds a
 * field databind would read must fail here, so the decoders learn it instead of silently dropping
 * it. Each set is what the decoders read plus what they skip on purpose (the trim drops it).
 */
class DecodedModelFieldsTest {
  private static final Map<Class<?>, String> FIELDS =
      Map.ofEntries(
          Map.entry(Service.class, "apiVersion kind metadata spec status"),
          Map.entry(
              ServiceSpec.class,
              "allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName"
                  + " externalTrafficPolicy healthCheckNodePort internalTrafficPolicy ipFamilies"
                  + " ipFamilyPolicy loadBalancerClass loadBalancerIP loadBalancerSourceRanges"
                  + " ports publishNotReadyAddresses selector sessionAffinity"
                  + " sessionAffinityConfig trafficDistribution type"),
          Map.entry(ServicePort.class, "appProtocol name nodePort port protocol targetPort"),
          Map.entry(SessionAffinityConfig.class, "clientIP"),
          Map.entry(ClientIPConfig.class, "timeoutSeconds"),
          Map.entry(ServiceStatus.class, "conditions loadBalancer"),
          Map.entry(LoadBalancerStatus.class, "ingress"),
          Map.entry(LoadBalancerIngress.class, "hostname ip ipMode ports"),
          Map.entry(PortStatus.class, "error port protocol"),
          Map.entry(EndpointSlice.class, "addressType apiVersion endpoints kind metadata ports"),
          Map.entry(EndpointPort.class, "appProtocol name port protocol"),
          Map.entry(
              Endpoint.class,
              "addresses conditions deprecatedTopology hints hostname nodeName targetRef zone"),
          Map.entry(EndpointConditions.class, "ready serving terminating"),
          Map.entry(EndpointHints.class, "forNodes forZones"),
          Map.entry(ForZone.class, "name"),
          Map.entry(ForNode.class, "name"));

  @Test
  void everyFieldDatabindWouldReadOfTheDecodedModelsIsOneTheDecodersKnow() {
    var mapper = new ObjectMapper();
    FIELDS.forEach(
        (type, known) -> {
          var properties =
              mapper
                  .getDeserializationConfig()
                  .introspect(mapper.constructType(type))
                  .findProperties()
                  .stream()
                  .filter(BeanPropertyDefinition::hasSetter)
                  .map(BeanPropertyDefinition::getName)
                  .collect(Collectors.toSet());

          assertThat(properties).as(type.getSimpleName()).containsOnly(known.split(" "));
        });
  }
}
