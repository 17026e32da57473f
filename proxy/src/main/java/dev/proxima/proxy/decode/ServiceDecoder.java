package dev.proxima.proxy.decode;

import static dev.proxima.proxy.decode.JsonFields.bool;
import static dev.proxima.proxy.decode.JsonFields.fields;
import static dev.proxima.proxy.decode.JsonFields.integer;
import static dev.proxima.proxy.decode.JsonFields.object;
import static dev.proxima.proxy.decode.JsonFields.objects;
import static dev.proxima.proxy.decode.JsonFields.skip;
import static dev.proxima.proxy.decode.JsonFields.string;
import static dev.proxima.proxy.decode.JsonFields.stringMap;
import static dev.proxima.proxy.decode.JsonFields.strings;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import dev.proxima.proxy.track.ProxyCacheTrim;
import io.fabric8.kubernetes.api.model.ClientIPConfig;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.PortStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.api.model.SessionAffinityConfig;
import java.io.IOException;

/**
 * Decodes a Service straight into what the proxy caches: equal to what databind would build and
 * {@link ProxyCacheTrim#service} would then trim, without building what the trim throws away
 * (status conditions) or having databind introspect the model's classes, which a cold JVM pays for
 * on the first list (about 0.1 s of a cold start). Unknown fields are skipped, not kept as
 * additional properties: nothing in the proxy reads them. Metadata is databind's to read ({@link
 * JsonFields#metadata}).
 */
public final class ServiceDecoder extends TrimmedObjectDecoder<Service> {
  private static final long serialVersionUID = 1L;

  public ServiceDecoder() {
    super(Service.class, Service::new, Service::setKind);
  }

  @Override
  void readField(Service service, String name, JsonParser parser, DeserializationContext context)
      throws IOException {
    switch (name) {
      case "spec" ->
          service.setSpec(object(parser, context, ServiceSpec.class, ServiceDecoder::spec));
      case "status" ->
          service.setStatus(object(parser, context, ServiceStatus.class, ServiceDecoder::status));
      default -> skip(parser);
    }
  }

  @Override
  void trim(Service decoded) {
    ProxyCacheTrim.service(decoded);
  }

  private static ServiceSpec spec(JsonParser parser, DeserializationContext context)
      throws IOException {
    var spec = new ServiceSpec();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "type" -> spec.setType(string(value, ctx));
            case "clusterIP" -> spec.setClusterIP(string(value, ctx));
            case "clusterIPs" -> spec.setClusterIPs(strings(value, ctx));
            case "ipFamilies" -> spec.setIpFamilies(strings(value, ctx));
            case "ipFamilyPolicy" -> spec.setIpFamilyPolicy(string(value, ctx));
            case "ports" ->
                spec.setPorts(objects(value, ctx, ServicePort.class, ServiceDecoder::port));
            case "selector" -> spec.setSelector(stringMap(value, ctx));
            case "externalIPs" -> spec.setExternalIPs(strings(value, ctx));
            case "externalName" -> spec.setExternalName(string(value, ctx));
            case "externalTrafficPolicy" -> spec.setExternalTrafficPolicy(string(value, ctx));
            case "internalTrafficPolicy" -> spec.setInternalTrafficPolicy(string(value, ctx));
            case "trafficDistribution" -> spec.setTrafficDistribution(string(value, ctx));
            case "healthCheckNodePort" -> spec.setHealthCheckNodePort(integer(value, ctx));
            case "loadBalancerIP" -> spec.setLoadBalancerIP(string(value, ctx));
            case "loadBalancerClass" -> spec.setLoadBalancerClass(string(value, ctx));
            case "loadBalancerSourceRanges" ->
                spec.setLoadBalancerSourceRanges(strings(value, ctx));
            case "allocateLoadBalancerNodePorts" ->
                spec.setAllocateLoadBalancerNodePorts(bool(value, ctx));
            case "publishNotReadyAddresses" -> spec.setPublishNotReadyAddresses(bool(value, ctx));
            case "sessionAffinity" -> spec.setSessionAffinity(string(value, ctx));
            case "sessionAffinityConfig" ->
                spec.setSessionAffinityConfig(
                    object(value, ctx, SessionAffinityConfig.class, ServiceDecoder::affinity));
            default -> skip(value);
          }
        });
    return spec;
  }

  private static ServicePort port(JsonParser parser, DeserializationContext context)
      throws IOException {
    var port = new ServicePort();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "name" -> port.setName(string(value, ctx));
            case "protocol" -> port.setProtocol(string(value, ctx));
            case "port" -> port.setPort(integer(value, ctx));
            case "targetPort" -> port.setTargetPort(targetPort(value, ctx));
            case "nodePort" -> port.setNodePort(integer(value, ctx));
            case "appProtocol" -> port.setAppProtocol(string(value, ctx));
            default -> skip(value);
          }
        });
    return port;
  }

  /**
   * An integer or a string, the two shapes an int-or-string takes; fabric8's own deserializer
   * judges every other (it refuses them all), so its error is the one a hostile port gets.
   */
  private static IntOrString targetPort(JsonParser parser, DeserializationContext context)
      throws IOException {
    return switch (parser.currentToken()) {
      case VALUE_STRING -> new IntOrString(parser.getText());
      case VALUE_NUMBER_INT ->
          parser.getNumberType() == JsonParser.NumberType.INT
              ? new IntOrString(parser.getIntValue())
              : context.readValue(parser, IntOrString.class);
      case VALUE_NULL -> null;
      default -> context.readValue(parser, IntOrString.class);
    };
  }

  private static SessionAffinityConfig affinity(JsonParser parser, DeserializationContext context)
      throws IOException {
    var affinity = new SessionAffinityConfig();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("clientIP")) {
            affinity.setClientIP(
                object(value, ctx, ClientIPConfig.class, ServiceDecoder::clientIp));
          } else {
            skip(value);
          }
        });
    return affinity;
  }

  private static ClientIPConfig clientIp(JsonParser parser, DeserializationContext context)
      throws IOException {
    var clientIp = new ClientIPConfig();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("timeoutSeconds")) {
            clientIp.setTimeoutSeconds(integer(value, ctx));
          } else {
            skip(value);
          }
        });
    return clientIp;
  }

  /** The status but for its conditions, which the proxy's serialization skips unread. */
  private static ServiceStatus status(JsonParser parser, DeserializationContext context)
      throws IOException {
    var status = new ServiceStatus();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("loadBalancer")) {
            status.setLoadBalancer(
                object(value, ctx, LoadBalancerStatus.class, ServiceDecoder::loadBalancer));
          } else {
            skip(value);
          }
        });
    return status;
  }

  private static LoadBalancerStatus loadBalancer(JsonParser parser, DeserializationContext context)
      throws IOException {
    var loadBalancer = new LoadBalancerStatus();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("ingress")) {
            loadBalancer.setIngress(
                objects(value, ctx, LoadBalancerIngress.class, ServiceDecoder::ingress));
          } else {
            skip(value);
          }
        });
    return loadBalancer;
  }

  private static LoadBalancerIngress ingress(JsonParser parser, DeserializationContext context)
      throws IOException {
    var ingress = new LoadBalancerIngress();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "ip" -> ingress.setIp(string(value, ctx));
            case "hostname" -> ingress.setHostname(string(value, ctx));
            case "ipMode" -> ingress.setIpMode(string(value, ctx));
            case "ports" ->
                ingress.setPorts(objects(value, ctx, PortStatus.class, ServiceDecoder::portStatus));
            default -> skip(value);
          }
        });
    return ingress;
  }

  private static PortStatus portStatus(JsonParser parser, DeserializationContext context)
      throws IOException {
    var port = new PortStatus();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "port" -> port.setPort(integer(value, ctx));
            case "protocol" -> port.setProtocol(string(value, ctx));
            case "error" -> port.setError(string(value, ctx));
            default -> skip(value);
          }
        });
    return port;
  }
}
