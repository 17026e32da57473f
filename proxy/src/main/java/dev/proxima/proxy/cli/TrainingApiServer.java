package dev.proxima.proxy.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceListBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceListBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.ServiceCIDRListBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A made-up cluster served on loopback for {@link TrainStartupCommand}: list responses for
 * Services, EndpointSlices, one Node and the default ServiceCIDR, and watches that stay open and
 * quiet. Just enough API server for the proxy's informers to list, sync and watch; everything else
 * is a 404.
 */
final class TrainingApiServer implements AutoCloseable {
  static final String NODE = "training-node";
  private static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  private final HttpServer server;
  private final ExecutorService threads;
  private final CountDownLatch closing = new CountDownLatch(1);
  private final Map<String, byte[]> lists;

  private TrainingApiServer(int services) throws IOException {
    lists =
        Map.of(
            "/api/v1/services", json(services(services)),
            "/apis/discovery.k8s.io/v1/endpointslices", json(slices(services)),
            "/api/v1/nodes", json(nodes()),
            "/apis/networking.k8s.io/v1/servicecidrs", json(serviceCidrs()));
    threads =
        Executors.newCachedThreadPool(
            task -> {
              var thread = new Thread(task, "training-api");
              thread.setDaemon(true);
              return thread;
            });
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(threads);
    server.createContext("/", this::answer);
    server.start();
  }

  static TrainingApiServer start(int services) throws IOException {
    return new TrainingApiServer(services);
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      var path = exchange.getRequestURI().getPath();
      var query = exchange.getRequestURI().getQuery();
      var list = lists.get(path);
      if (list == null) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (query == null || !query.contains("watch=true")) {
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, list.length);
        exchange.getResponseBody().write(list);
        return;
      }
      if (exchange.getRequestHeaders().containsKey("Upgrade")) {
        // A plain 200 to a WebSocket upgrade makes the client watch over a hanging GET instead.
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      exchange.getResponseBody().flush();
      closing.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static byte[] json(Object list) {
    return Serialization.asJson(list).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Services of the kinds a cluster has, so the training run goes through each one's planning and
   * rendering: ClusterIP, NodePort, LoadBalancer, session affinity, local traffic policy and
   * same-zone routing, over TCP and UDP.
   */
  private static Object services(int count) {
    var items = new ArrayList<io.fabric8.kubernetes.api.model.Service>();
    for (int i = 0; i < count; i++) {
      var type = i % 10 == 1 ? "NodePort" : i % 10 == 2 ? "LoadBalancer" : "ClusterIP";
      var spec =
          new ServiceBuilder()
              .withNewMetadata()
              .withNamespace("ns-" + i % 20)
              .withName("svc-" + i)
              .withResourceVersion("1")
              .withUid("00000000-0000-0000-0000-" + String.format("%012d", i))
              .endMetadata()
              .withNewSpec()
              .withType(type)
              .withClusterIP(address(10, 96, i))
              .withClusterIPs(address(10, 96, i))
              .withIpFamilies("IPv4")
              .withSessionAffinity(i % 7 == 3 ? "ClientIP" : "None")
              .withExternalTrafficPolicy(i % 10 == 2 && i % 4 == 0 ? "Local" : null)
              .withTrafficDistribution(i % 3 == 0 ? "PreferSameZone" : null)
              .addNewPort()
              .withName("http")
              .withProtocol(i % 9 == 4 ? "UDP" : "TCP")
              .withPort(80)
              .withTargetPort(new IntOrString(8080))
              .withNodePort(type.equals("ClusterIP") ? null : 30000 + i % 2000)
              .endPort()
              .endSpec();
      if (type.equals("LoadBalancer")) {
        spec.withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp(address(192, 0, i))
            .endIngress()
            .endLoadBalancer()
            .endStatus();
      }
      items.add(spec.build());
    }
    return new ServiceListBuilder()
        .withNewMetadata()
        .withResourceVersion("1")
        .endMetadata()
        .withItems(items)
        .build();
  }

  /** One slice of two ready endpoints per Service, one in this node's zone, with zone hints. */
  private static Object slices(int count) {
    var items = new ArrayList<io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice>();
    for (int i = 0; i < count; i++) {
      var slice =
          new EndpointSliceBuilder()
              .withNewMetadata()
              .withNamespace("ns-" + i % 20)
              .withName("svc-" + i + "-abcde")
              .withResourceVersion("1")
              .withLabels(Map.of("kubernetes.io/service-name", "svc-" + i))
              .endMetadata()
              .withAddressType("IPv4")
              .addNewPort()
              .withName("http")
              .withProtocol(i % 9 == 4 ? "UDP" : "TCP")
              .withPort(8080)
              .endPort();
      for (int e = 0; e < 2; e++) {
        var zone = e == 0 ? "zone-a" : "zone-b";
        slice
            .addNewEndpoint()
            .withAddresses(address(10, 200 + e, i))
            .withNodeName(e == 0 ? NODE : "other-node")
            .withZone(zone)
            .withNewConditions()
            .withReady(true)
            .withServing(true)
            .withTerminating(false)
            .endConditions()
            .withNewHints()
            .addNewForZone(zone)
            .endHints()
            .endEndpoint();
      }
      items.add(slice.build());
    }
    return new EndpointSliceListBuilder()
        .withMetadata(new ListMetaBuilder().withResourceVersion("1").build())
        .withItems(items)
        .build();
  }

  private static Object nodes() {
    return new NodeListBuilder()
        .withNewMetadata()
        .withResourceVersion("1")
        .endMetadata()
        .withItems(
            List.of(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(NODE)
                    .withResourceVersion("1")
                    .withLabels(Map.of(ZONE_LABEL, "zone-a"))
                    .endMetadata()
                    .withNewStatus()
                    .addNewAddress()
                    .withType("InternalIP")
                    .withAddress("10.0.0.1")
                    .endAddress()
                    .endStatus()
                    .build()))
        .build();
  }

  /** The default ServiceCIDR an API server of Kubernetes 1.33 or later creates. */
  private static Object serviceCidrs() {
    return new ServiceCIDRListBuilder()
        .withMetadata(new ListMetaBuilder().withResourceVersion("1").build())
        .addNewItem()
        .withNewMetadata()
        .withName("kubernetes")
        .withResourceVersion("1")
        .endMetadata()
        .withNewSpec()
        .withCidrs("10.96.0.0/12")
        .endSpec()
        .endItem()
        .build();
  }

  private static String address(int first, int second, int index) {
    return first + "." + second + "." + (index / 250) % 250 + "." + (index % 250 + 1);
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
