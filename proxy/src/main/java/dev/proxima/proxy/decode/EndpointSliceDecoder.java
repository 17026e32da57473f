package dev.proxima.proxy.decode;

import static dev.proxima.proxy.decode.JsonFields.bool;
import static dev.proxima.proxy.decode.JsonFields.fields;
import static dev.proxima.proxy.decode.JsonFields.integer;
import static dev.proxima.proxy.decode.JsonFields.object;
import static dev.proxima.proxy.decode.JsonFields.objects;
import static dev.proxima.proxy.decode.JsonFields.skip;
import static dev.proxima.proxy.decode.JsonFields.string;
import static dev.proxima.proxy.decode.JsonFields.strings;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import dev.proxima.proxy.track.ProxyCacheTrim;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import java.io.IOException;

/**
 * Decodes an EndpointSlice straight into what the proxy caches: equal to what databind would build
 * and {@link ProxyCacheTrim#slice} would then trim, without building the endpoints' target
 * references, hostnames and deprecated topology, nor having databind introspect the model's
 * classes. Unknown fields are skipped, not kept as additional properties. Metadata is databind's to
 * read ({@link JsonFields#metadata}).
 */
public final class EndpointSliceDecoder extends TrimmedObjectDecoder<EndpointSlice> {
  private static final long serialVersionUID = 1L;

  public EndpointSliceDecoder() {
    super(EndpointSlice.class, EndpointSlice::new, EndpointSlice::setKind);
  }

  @Override
  void readField(
      EndpointSlice slice, String name, JsonParser parser, DeserializationContext context)
      throws IOException {
    switch (name) {
      case "addressType" -> slice.setAddressType(string(parser, context));
      case "ports" ->
          slice.setPorts(objects(parser, context, EndpointPort.class, EndpointSliceDecoder::port));
      case "endpoints" ->
          slice.setEndpoints(
              objects(parser, context, Endpoint.class, EndpointSliceDecoder::endpoint));
      default -> skip(parser);
    }
  }

  @Override
  void trim(EndpointSlice decoded) {
    ProxyCacheTrim.slice(decoded);
  }

  private static EndpointPort port(JsonParser parser, DeserializationContext context)
      throws IOException {
    var port = new EndpointPort();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "name" -> port.setName(string(value, ctx));
            case "port" -> port.setPort(integer(value, ctx));
            case "protocol" -> port.setProtocol(string(value, ctx));
            case "appProtocol" -> port.setAppProtocol(string(value, ctx));
            default -> skip(value);
          }
        });
    return port;
  }

  /** An endpoint but for its target reference, hostname and deprecated topology, skipped unread. */
  private static Endpoint endpoint(JsonParser parser, DeserializationContext context)
      throws IOException {
    var endpoint = new Endpoint();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "addresses" -> endpoint.setAddresses(strings(value, ctx));
            case "conditions" ->
                endpoint.setConditions(
                    object(value, ctx, EndpointConditions.class, EndpointSliceDecoder::conditions));
            case "zone" -> endpoint.setZone(string(value, ctx));
            case "nodeName" -> endpoint.setNodeName(string(value, ctx));
            case "hints" ->
                endpoint.setHints(
                    object(value, ctx, EndpointHints.class, EndpointSliceDecoder::hints));
            default -> skip(value);
          }
        });
    return endpoint;
  }

  private static EndpointConditions conditions(JsonParser parser, DeserializationContext context)
      throws IOException {
    var conditions = new EndpointConditions();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "ready" -> conditions.setReady(bool(value, ctx));
            case "serving" -> conditions.setServing(bool(value, ctx));
            case "terminating" -> conditions.setTerminating(bool(value, ctx));
            default -> skip(value);
          }
        });
    return conditions;
  }

  private static EndpointHints hints(JsonParser parser, DeserializationContext context)
      throws IOException {
    var hints = new EndpointHints();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          switch (name) {
            case "forZones" ->
                hints.setForZones(objects(value, ctx, ForZone.class, EndpointSliceDecoder::zone));
            case "forNodes" ->
                hints.setForNodes(objects(value, ctx, ForNode.class, EndpointSliceDecoder::node));
            default -> skip(value);
          }
        });
    return hints;
  }

  private static ForZone zone(JsonParser parser, DeserializationContext context)
      throws IOException {
    var zone = new ForZone();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("name")) {
            zone.setName(string(value, ctx));
          } else {
            skip(value);
          }
        });
    return zone;
  }

  private static ForNode node(JsonParser parser, DeserializationContext context)
      throws IOException {
    var node = new ForNode();
    fields(
        parser,
        context,
        (name, value, ctx) -> {
          if (name.equals("name")) {
            node.setName(string(value, ctx));
          } else {
            skip(value);
          }
        });
    return node;
  }
}
