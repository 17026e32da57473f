package dev.proxima.cli;

import static dev.proxima.proxy.testing.ApiObjects.serviceCidr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

/**
 * The proxy's offline commands read ServiceCIDRs from a live cluster as the live proxy watches
 * them, and go on without them where the cluster will not list them.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class LiveClusterStateTest {
  private static final String SERVICE_CIDRS = "/apis/networking.k8s.io/v1/servicecidrs";

  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void listsTheClustersServiceCidrsForTheProxysCommands() throws Exception {
    client.resource(serviceCidr("10.96.0.0/16", "fd00:10:96::/112")).create();

    var withCidrs = LiveClusterState.list(client, true);
    var without = LiveClusterState.list(client, false);

    assertThat(withCidrs.serviceCidrs())
        .singleElement()
        .satisfies(
            cidr ->
                assertThat(cidr.getSpec().getCidrs())
                    .containsExactly("10.96.0.0/16", "fd00:10:96::/112"));
    assertThat(withCidrs.ignored()).isEmpty();
    assertThat(without.serviceCidrs()).isEmpty();
  }

  @Test
  void aClusterThatDoesNotServeServiceCidrsGivesNoneAndANote() throws Exception {
    refuse(404, "NotFound", "the server could not find the requested resource");

    var state = LiveClusterState.list(client, true);

    assertThat(state.serviceCidrs()).isEmpty();
    assertThat(state.ignored())
        .singleElement()
        .asString()
        .startsWith("ServiceCIDRs not listed (")
        .contains("404")
        .endsWith(
            "traffic to unallocated Service addresses is not dropped, as the proxy does"
                + " when it cannot list them");
  }

  @Test
  void aUserWhoMayNotListServiceCidrsGetsNoneAndANote() throws Exception {
    refuse(403, "Forbidden", "servicecidrs is forbidden");

    var state = LiveClusterState.list(client, true);

    assertThat(state.serviceCidrs()).isEmpty();
    assertThat(state.ignored()).singleElement().asString().contains("403");
  }

  @Test
  void anyOtherFailureToListServiceCidrsStillStopsTheCommand() {
    refuse(500, "InternalError", "etcd is down");

    // As the command's own client: one try, not the retries a long-running process wants.
    try (var oneTry =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      assertThatThrownBy(() -> LiveClusterState.list(oneTry, true))
          .isInstanceOf(LiveClusterState.UnreachableException.class)
          .hasMessageStartingWith("cannot list http")
          .hasMessageContaining(SERVICE_CIDRS);
    }
  }

  private void refuse(int code, String reason, String message) {
    server
        .expect()
        .get()
        .withPath(SERVICE_CIDRS + "?limit=500")
        .andReturn(
            code,
            new StatusBuilder().withCode(code).withReason(reason).withMessage(message).build())
        .always();
  }
}
