package dev.proxima.bench.jmh;

import dev.proxima.bench.SyntheticCluster;
import dev.proxima.proxy.catalog.ServiceCatalog;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.selection.EndpointSelection;
import dev.proxima.proxy.selection.EndpointSelector;
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
import org.openjdk.jmh.infra.Blackhole;

/** Endpoint selection by topology hints for every Service port of a node, hinted or not. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SelectionBenchmark {
  @Param({"10000"})
  public int services;

  @Param({"20"})
  public int endpoints;

  private List<ServiceCatalog.Entry> entries;

  @Setup(Level.Trial)
  public void setUp() {
    var cluster = new SyntheticCluster(services, endpoints, "PreferSameZone");
    entries =
        ServiceCatalog.build(
                cluster.services(),
                cluster.hintedSlices(),
                new ServiceCatalog.Options(SyntheticCluster.PROXY_NODE, IpFamily.IPV4, null, null))
            .entries();
  }

  @Benchmark
  public void selectEveryServicePort(Blackhole sink) {
    for (var entry : entries) {
      EndpointSelection selection =
          EndpointSelector.select(
              entry.endpoints(), entry.port(), SyntheticCluster.PROXY_NODE, "zone-a");
      sink.consume(selection);
    }
  }
}
