package dev.proxima.proxy.testing;

import dev.proxima.model.ObjectKey;
import dev.proxima.model.ZoneSpillOverSetting;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Locality;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import dev.proxima.proxy.render.ServicePortRules;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Builders for the renderer's input. */
public final class ServicePortFixtures {
  private ServicePortFixtures() {}

  public static Endpoint remote(String ip, int port) {
    return new Endpoint(ip, port, true, true, false, "other-node", false, Set.of(), Set.of(), null);
  }

  public static Endpoint local(String ip, int port) {
    return new Endpoint(ip, port, true, true, false, "this-node", true, Set.of(), Set.of(), null);
  }

  /** A ready endpoint on another node, whose locality relative to this node is {@code locality}. */
  public static Endpoint remote(String ip, int port, Locality locality) {
    return new Endpoint(
        ip, port, true, true, false, "other-node", false, Set.of(), Set.of(), locality);
  }

  public static Svc service(String namespaceAndName, String clusterIp, int port) {
    return new Svc(ObjectKey.parse(namespaceAndName), clusterIp, port);
  }

  /** A Service port under construction; every setter returns this. */
  public static final class Svc {
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
    private boolean observeLocality;

    private Svc(ObjectKey key, String clusterIp, int port) {
      this.key = key;
      this.clusterIp = clusterIp;
      this.port = port;
    }

    private ZoneSpillOverSetting zoneSpillOver;

    public Svc portName(String value) {
      portName = value;
      return this;
    }

    public Svc protocol(Protocol value) {
      protocol = value;
      return this;
    }

    public Svc nodePort(int value) {
      nodePort = value;
      return this;
    }

    public Svc externalIps(String... value) {
      externalIps = List.of(value);
      return this;
    }

    public Svc loadBalancerIps(String... value) {
      loadBalancerIps = List.of(value);
      return this;
    }

    public Svc sourceRanges(String... value) {
      sourceRanges = List.of(value);
      return this;
    }

    public Svc sticky(Duration value) {
      sticky = value;
      return this;
    }

    public Svc internalLocal() {
      internalLocal = true;
      return this;
    }

    public Svc healthCheckNodePort(int value) {
      healthCheckNodePort = value;
      return this;
    }

    public Svc externalLocal() {
      externalLocal = true;
      return this;
    }

    /** The Service is annotated proxima.dev/observe-locality: "true". */
    public Svc observeLocality() {
      observeLocality = true;
      return this;
    }

    public Svc zoneSpillOver(ZoneSpillOverSetting value) {
      zoneSpillOver = value;
      return this;
    }

    public ServicePort build() {
      return new ServicePort(
          new ServicePortName(key, portName, protocol),
          clusterIp,
          port,
          nodePort,
          externalIps,
          loadBalancerIps,
          sourceRanges,
          !sourceRanges.isEmpty(),
          sticky,
          internalLocal,
          externalLocal,
          healthCheckNodePort,
          null,
          null,
          observeLocality,
          zoneSpillOver);
    }

    /** Only a Cluster list; hasAnyEndpoints when it is non-empty. */
    public ServicePortRules cluster(Endpoint... endpoints) {
      return new ServicePortRules(build(), List.of(endpoints), null, endpoints.length > 0);
    }

    public ServicePortRules rules(List<Endpoint> cluster, List<Endpoint> local, boolean hasAny) {
      return new ServicePortRules(build(), cluster, local, hasAny);
    }
  }
}
