package dev.proxima.proxy.render.iptables;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.nft.ServicePortRules;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Builders for the renderer's input. */
final class IptablesFixtures {
  private IptablesFixtures() {}

  static Endpoint remote(String ip, int port) {
    return new Endpoint(ip, port, true, true, false, "other-node", false, Set.of(), Set.of());
  }

  static Endpoint local(String ip, int port) {
    return new Endpoint(ip, port, true, true, false, "this-node", true, Set.of(), Set.of());
  }

  static Svc service(String namespaceAndName, String clusterIp, int port) {
    return new Svc(ObjectKey.parse(namespaceAndName), clusterIp, port);
  }

  /** A Service port under construction; every setter returns this. */
  static final class Svc {
    private final ObjectKey key;
    private final String clusterIp;
    private final int port;
    private String portName = "";
    private Protocol protocol = Protocol.TCP;
    private int nodePort;
    private List<String> externalIps = List.of();
    private List<String> loadBalancerIps = List.of();
    private List<String> sourceRanges = List.of();
    private Duration sticky;
    private boolean internalLocal;
    private boolean externalLocal;
    private int healthCheckNodePort;

    private Svc(ObjectKey key, String clusterIp, int port) {
      this.key = key;
      this.clusterIp = clusterIp;
      this.port = port;
    }

    Svc portName(String value) {
      portName = value;
      return this;
    }

    Svc protocol(Protocol value) {
      protocol = value;
      return this;
    }

    Svc nodePort(int value) {
      nodePort = value;
      return this;
    }

    Svc externalIps(String... value) {
      externalIps = List.of(value);
      return this;
    }

    Svc loadBalancerIps(String... value) {
      loadBalancerIps = List.of(value);
      return this;
    }

    Svc sourceRanges(String... value) {
      sourceRanges = List.of(value);
      return this;
    }

    Svc sticky(Duration value) {
      sticky = value;
      return this;
    }

    Svc internalLocal() {
      internalLocal = true;
      return this;
    }

    Svc healthCheckNodePort(int value) {
      healthCheckNodePort = value;
      return this;
    }

    Svc externalLocal() {
      externalLocal = true;
      return this;
    }

    ServicePort build() {
      return new ServicePort(
          new ServicePortName(key, portName, protocol),
          clusterIp,
          port,
          nodePort,
          externalIps,
          loadBalancerIps,
          sourceRanges,
          sticky,
          internalLocal,
          externalLocal,
          healthCheckNodePort,
          null);
    }

    /** Only a Cluster list; hasAnyEndpoints when it is non-empty. */
    ServicePortRules cluster(Endpoint... endpoints) {
      return new ServicePortRules(build(), List.of(endpoints), null, endpoints.length > 0);
    }

    ServicePortRules rules(List<Endpoint> cluster, List<Endpoint> local, boolean hasAny) {
      return new ServicePortRules(build(), cluster, local, hasAny);
    }
  }
}
