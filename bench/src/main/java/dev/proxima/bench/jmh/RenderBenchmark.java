package dev.proxima.bench.jmh;

import dev.proxima.bench.RenderedRules;
import dev.proxima.bench.SyntheticCluster;
import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import dev.proxima.proxy.render.nft.RulesetAssembler;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The JVM side of a sync: planning a node, assembling the full script, and a one-Service delta. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RenderBenchmark {
  @Param({"10000"})
  public int services;

  private List<Service> serviceObjects;
  private List<EndpointSlice> slices;
  private Node node;
  private FamilySettings config;
  private List<ServicePortRules> rules;
  private RenderedRules incremental;
  private SyntheticCluster cluster;
  private EndpointSlice[] alternatives;
  private int flip;

  @Setup(Level.Trial)
  public void setUp() {
    cluster = new SyntheticCluster(services, 2, null);
    serviceObjects = cluster.services();
    slices = cluster.slices();
    node = cluster.nodes().get(0);
    config = RuleSettings.defaults().forFamily(IpFamily.IPV4, List.of(), List.of());
    rules = RenderedRules.portRules(cluster);
    incremental = new RenderedRules(cluster);
    var moved = cluster.slice(services / 2);
    moved.getEndpoints().get(1).setAddresses(List.of("10.192.0.1"));
    alternatives = new EndpointSlice[] {moved, cluster.slice(services / 2)};
  }

  /** Catalog, endpoint selection and topology for every Service port of the node. */
  @Benchmark
  public NodePlanner.FamilyPlan planNode() {
    return NodePlanner.plan(
        IpFamily.IPV4,
        SyntheticCluster.PROXY_NODE,
        node,
        null,
        serviceObjects,
        slices,
        AddressPolicy.ofNode(node),
        ZoneDemand.unknown());
  }

  /** The full-sync script from planned ports. */
  @Benchmark
  public String assembleFullScript() {
    return new RulesetAssembler(config).replaceAll(rules);
  }

  /** A partial sync's JVM work for one changed Service: plan it, render it, diff it. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public String partialOneService() {
    return incremental.delta(services / 2, alternatives[flip++ & 1]);
  }
}
