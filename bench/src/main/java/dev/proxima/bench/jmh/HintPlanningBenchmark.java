package dev.proxima.bench.jmh;

import dev.proxima.bench.SyntheticCluster;
import dev.proxima.controller.hints.HintPlanner;
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
import org.openjdk.jmh.infra.Blackhole;

/** The controller's planning for every Service of a cluster whose slices still lack hints. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class HintPlanningBenchmark {
  @Param({"5000"})
  public int services;

  @Param({"20"})
  public int endpoints;

  private List<Service> serviceObjects;
  private List<EndpointSlice> slices;
  private HintPlanner planner;

  @Setup(Level.Trial)
  public void setUp() {
    var cluster = new SyntheticCluster(services, endpoints, "PreferSameZone");
    serviceObjects = cluster.services();
    slices = cluster.slices();
    planner = new HintPlanner();
  }

  @Benchmark
  public void planEveryService(Blackhole sink) {
    for (int i = 0; i < serviceObjects.size(); i++) {
      sink.consume(planner.plan(serviceObjects.get(i), List.of(slices.get(i))));
    }
  }
}
