package dev.proxima.proxy.track;

import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.model.Annotations;
import dev.proxima.model.Labels;
import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.informers.ProxyCacheTrim;
import dev.proxima.proxy.testing.ApiObjects;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZoneBuilder;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a Service's or a slice's update makes a sync plan again, given the copy the informer held:
 * the same object listed again or replayed by a new watch (new resourceVersion, bookkeeping) is no
 * change; every field the rules read is one. Both copies are trimmed, as the cache trims them.
 */
class PendingChangesRelistTest {
  private static final ObjectKey WEB = new ObjectKey("shop", "web");
  private static final ObjectKey SLICE = new ObjectKey("shop", "web-1");

  private final PendingChanges changes = new PendingChanges(Instant.parse("2026-01-01T10:00:00Z"));

  private static Service service() {
    return new ServiceBuilder(
            ApiObjects.service("shop", "web", "10.96.0.10")
                .created("2026-01-01T09:00:00Z", "uid-1")
                .build())
        .editMetadata()
        .withResourceVersion("100")
        .endMetadata()
        .build();
  }

  private static EndpointSlice slice() {
    var slice = ApiObjects.sliceOnNode("shop", "web", "node-a", "10.244.1.5");
    slice.getMetadata().setResourceVersion("100");
    slice.getEndpoints().get(0).setZone("zone-a");
    return slice;
  }

  /** Records an object as the cache holds it, takes it in as a sync would, then its update. */
  @FunctionalInterface
  private interface Update {
    void record(PendingChanges changes);
  }

  private static Arguments service(String change, boolean planned, UnaryOperator<Service> edit) {
    Update update =
        changes -> {
          var before = service();
          var after = edit.apply(service());
          ProxyCacheTrim.service(before);
          ProxyCacheTrim.service(after);
          changes.serviceChanged(WEB, null, before);
          changes.drainChangedServices();
          changes.serviceChanged(WEB, before, after);
        };
    return Arguments.of(change, planned, update);
  }

  private static Arguments slice(
      String change, boolean planned, UnaryOperator<EndpointSliceBuilder> edit) {
    Update update =
        changes -> {
          var before = slice();
          var after = edit.apply(new EndpointSliceBuilder(slice())).build();
          ProxyCacheTrim.slice(before);
          ProxyCacheTrim.slice(after);
          changes.sliceChanged(SLICE, null, before);
          changes.drainChangedServices();
          changes.sliceChanged(SLICE, before, after);
        };
    return Arguments.of(change, planned, update);
  }

  static Stream<Arguments> updates() {
    return Stream.of(
        service(
            "listed again with a new resourceVersion",
            false,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .withResourceVersion("200")
                    .endMetadata()
                    .build()),
        service(
            "replayed with managed fields",
            false,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .withResourceVersion("200")
                    .addToManagedFields(
                        new ManagedFieldsEntryBuilder().withManager("kubectl").build())
                    .endMetadata()
                    .build()),
        service(
            "an annotation the proxy does not read",
            false,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToAnnotations("note", "x")
                    .endMetadata()
                    .build()),
        service(
            "a status condition",
            false,
            s ->
                new ServiceBuilder(s)
                    .editOrNewStatus()
                    .addToConditions(new ConditionBuilder().withType("Ready").build())
                    .endStatus()
                    .build()),
        service(
            "a port number",
            true,
            s ->
                new ServiceBuilder(s)
                    .editSpec()
                    .editFirstPort()
                    .withPort(81)
                    .endPort()
                    .endSpec()
                    .build()),
        service(
            "a port's protocol",
            true,
            s ->
                new ServiceBuilder(s)
                    .editSpec()
                    .editFirstPort()
                    .withProtocol("UDP")
                    .endPort()
                    .endSpec()
                    .build()),
        service(
            "the cluster IP",
            true,
            s -> new ServiceBuilder(s).editSpec().withClusterIP("10.96.0.11").endSpec().build()),
        service(
            "the internal traffic policy",
            true,
            s ->
                new ServiceBuilder(s)
                    .editSpec()
                    .withInternalTrafficPolicy("Local")
                    .endSpec()
                    .build()),
        service(
            "the traffic distribution",
            true,
            s ->
                new ServiceBuilder(s)
                    .editSpec()
                    .withTrafficDistribution("PreferClose")
                    .endSpec()
                    .build()),
        service(
            "session affinity",
            true,
            s ->
                new ServiceBuilder(s).editSpec().withSessionAffinity("ClientIP").endSpec().build()),
        service(
            "the service-proxy-name label",
            true,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToLabels(Labels.SERVICE_PROXY_NAME, "other")
                    .endMetadata()
                    .build()),
        service(
            "the observe-locality annotation",
            true,
            s ->
                new ServiceBuilder(s)
                    .editMetadata()
                    .addToAnnotations(Annotations.OBSERVE_LOCALITY, "true")
                    .endMetadata()
                    .build()),
        service(
            "a load-balancer ingress address",
            true,
            s ->
                new ServiceBuilder(s)
                    .editOrNewStatus()
                    .editOrNewLoadBalancer()
                    .addToIngress(new LoadBalancerIngressBuilder().withIp("192.0.2.1").build())
                    .endLoadBalancer()
                    .endStatus()
                    .build()),
        service(
            "deleted and created again with the same spec (new UID)",
            true,
            s -> new ServiceBuilder(s).editMetadata().withUid("uid-2").endMetadata().build()),
        slice(
            "listed again with a new resourceVersion",
            false,
            s -> s.editMetadata().withResourceVersion("200").endMetadata()),
        slice(
            "replayed with managed fields",
            false,
            s ->
                s.editMetadata()
                    .withResourceVersion("200")
                    .addToManagedFields(
                        new ManagedFieldsEntryBuilder()
                            .withManager("endpointslice-controller")
                            .build())
                    .endMetadata()),
        slice(
            "a new last-change-trigger-time alone",
            false,
            s ->
                s.editMetadata()
                    .addToAnnotations(Annotations.LAST_CHANGE_TRIGGER_TIME, "2026-01-01T11:00:00Z")
                    .endMetadata()),
        slice(
            "an endpoint no longer ready",
            true,
            s ->
                s.editFirstEndpoint()
                    .editConditions()
                    .withReady(false)
                    .endConditions()
                    .endEndpoint()),
        slice(
            "an endpoint terminating",
            true,
            s ->
                s.editFirstEndpoint()
                    .editConditions()
                    .withServing(true)
                    .withTerminating(true)
                    .endConditions()
                    .endEndpoint()),
        slice(
            "an endpoint's zone hint",
            true,
            s ->
                s.editFirstEndpoint()
                    .withNewHints()
                    .withForZones(new ForZoneBuilder().withName("zone-b").build())
                    .endHints()
                    .endEndpoint()),
        slice(
            "an endpoint's zone",
            true,
            s -> s.editFirstEndpoint().withZone("zone-b").endEndpoint()),
        slice(
            "an endpoint's node",
            true,
            s -> s.editFirstEndpoint().withNodeName("node-b").endEndpoint()),
        slice(
            "an endpoint's address",
            true,
            s -> s.editFirstEndpoint().withAddresses("10.244.1.6").endEndpoint()),
        slice("the slice's port", true, s -> s.editFirstPort().withPort(8081).endPort()),
        slice("the slice's port name", true, s -> s.editFirstPort().withName("web").endPort()));
  }

  @ParameterizedTest(name = "{0}: planned again = {1}")
  @MethodSource("updates")
  void anUpdateIsPlannedAgainOnlyWhenItChangesWhatTheRulesRead(
      String change, boolean planned, Update update) {
    update.record(changes);

    assertThat(changes.drainChangedServices())
        .as(change)
        .isEqualTo(planned ? Set.of(WEB) : Set.of());
  }
}
