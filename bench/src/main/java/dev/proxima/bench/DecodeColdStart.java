package dev.proxima.bench;

import dev.proxima.proxy.informers.TrimOnDecode;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.ServiceListBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How long a cold JVM, run with the proxy's DaemonSet flags, takes to decode the first list of
 * Services and of EndpointSlices with the proxy's serialization ({@link TrimOnDecode}): the list
 * phase of a cold start without the API server, the network or the informers around it, then one
 * watch event (the first object decoded by its kind, apart: firstWatchEventMs). Each measurement is
 * a fresh JVM, as a restarted proxy is; the figures are the median over the runs.
 *
 * <p>{@code java -cp bench/target/proxima-bench.jar dev.proxima.bench.DecodeColdStart [runs]
 * [services] [endpoints]} (5 runs of 10,000 Services × 2 endpoints unless given). To compare two
 * builds, run it with each build's jar: the lists are written by the same generator either way.
 */
public final class DecodeColdStart {
  private DecodeColdStart() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("decode")) {
      decode(Path.of(args[1]));
      return;
    }
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int services = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int endpoints = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    var work = Files.createTempDirectory("decode-cold-start");
    write(new SyntheticCluster(services, endpoints, null), work);
    var proxyJar = Path.of("proxy", "target", "proxima-proxy.jar");
    var jvm = DeployedJvm.manifestOnly(proxyJar);
    var rows = new ArrayList<double[]>();
    for (int run = 0; run < runs; run++) {
      var command =
          jvm.harnessCommand(
              System.getProperty("java.class.path"),
              DecodeColdStart.class,
              List.of("decode", work.toString()));
      var builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().putAll(jvm.environment());
      var process = builder.start();
      var output = new String(process.getInputStream().readAllBytes()).trim();
      if (process.waitFor() != 0) {
        throw new IllegalStateException("decode run failed: " + output);
      }
      var line = output.lines().reduce((first, last) -> last).orElseThrow();
      System.out.println("run " + (run + 1) + ": " + line);
      var fields = line.split(" ");
      var row = new double[fields.length];
      for (int i = 0; i < fields.length; i++) {
        row[i] = Double.parseDouble(fields[i].substring(fields[i].indexOf('=') + 1));
      }
      rows.add(row);
    }
    var names = rows.isEmpty() ? new String[0] : lastLineNames(rows.get(0).length);
    var median = new StringBuilder("median of " + runs + ":");
    for (int i = 0; i < names.length; i++) {
      int column = i;
      var values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
      median.append(String.format(Locale.ROOT, " %s=%.0f", names[i], values[values.length / 2]));
    }
    System.out.println(median);
    Files.delete(work.resolve("services.json"));
    Files.delete(work.resolve("slices.json"));
    Files.delete(work);
  }

  private static final String[] COLUMNS = {
    "serializationMs",
    "servicesMs",
    "slicesMs",
    "totalMs",
    "threadCpuMs",
    "processCpuMs",
    "firstWatchEventMs"
  };

  private static String[] lastLineNames(int count) {
    return java.util.Arrays.copyOf(COLUMNS, count);
  }

  /** The lists as the API server writes them, with the metadata it adds to every object. */
  static void write(SyntheticCluster cluster, Path work) throws Exception {
    var plain = new KubernetesSerialization();
    var services = cluster.services();
    var slices = cluster.slices();
    for (int i = 0; i < services.size(); i++) {
      var metadata = services.get(i).getMetadata();
      metadata.setUid("6f0c7f1e-0000-4000-8000-" + String.format("%012d", i));
      metadata.setResourceVersion(Integer.toString(1000 + i));
      metadata.setCreationTimestamp("2026-11-25T04:00:00Z");
      var sliceMetadata = slices.get(i).getMetadata();
      sliceMetadata.setUid("6f0c7f1e-0000-4000-9000-" + String.format("%012d", i));
      sliceMetadata.setResourceVersion(Integer.toString(20_000 + i));
      sliceMetadata.setCreationTimestamp("2026-11-25T04:00:00Z");
      sliceMetadata.setGeneration(1L);
    }
    Files.writeString(
        work.resolve("services.json"),
        plain.asJson(
            new ServiceListBuilder()
                .withNewMetadata()
                .withResourceVersion("40000")
                .endMetadata()
                .withItems(services)
                .build()));
    Files.writeString(
        work.resolve("slices.json"),
        plain.asJson(
            new EndpointSliceListBuilder()
                .withMetadata(new ListMetaBuilder().withResourceVersion("40000").build())
                .withItems(slices)
                .build()));
  }

  private static final String WATCH_EVENT =
      """
      {"type": "ADDED", "object": {"apiVersion": "v1", "kind": "Service",
       "metadata": {"name": "new", "namespace": "shop", "resourceVersion": "40001"},
       "spec": {"type": "ClusterIP", "clusterIP": "10.96.200.1",
         "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}]}}}
      """;

  /** One cold measurement: the proxy's serialization made, then each list decoded once. */
  private static void decode(Path work) throws Exception {
    var serviceJson = Files.readAllBytes(work.resolve("services.json"));
    var sliceJson = Files.readAllBytes(work.resolve("slices.json"));
    var threads = ManagementFactory.getThreadMXBean();
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long process0 = os.getProcessCpuTime();
    long start = System.nanoTime();
    var serialization = TrimOnDecode.serialization();
    long made = System.nanoTime();
    var services =
        serialization.unmarshal(new ByteArrayInputStream(serviceJson), ServiceList.class);
    long servicesDone = System.nanoTime();
    var slices =
        serialization.unmarshal(new ByteArrayInputStream(sliceJson), EndpointSliceList.class);
    long end = System.nanoTime();
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    long process = os.getProcessCpuTime() - process0;
    // The informers' first watch event: the first object fabric8 decodes by its kind, which is
    // where a serialization told to search the class path for model classes does so.
    long watchStart = System.nanoTime();
    var event = serialization.unmarshal(WATCH_EVENT, WatchEvent.class);
    long watchEnd = System.nanoTime();
    if (!(event.getObject() instanceof Service)) {
      throw new IllegalStateException("watch event decoded as " + event.getObject());
    }
    if (services.getItems().isEmpty() || slices.getItems().isEmpty()) {
      throw new IllegalStateException("nothing decoded");
    }
    System.out.printf(
        Locale.ROOT,
        "serializationMs=%.1f servicesMs=%.1f slicesMs=%.1f totalMs=%.1f threadCpuMs=%.1f"
            + " processCpuMs=%.1f firstWatchEventMs=%.1f%n",
        (made - start) / 1e6,
        (servicesDone - made) / 1e6,
        (end - servicesDone) / 1e6,
        (end - start) / 1e6,
        cpu / 1e6,
        process / 1e6,
        (watchEnd - watchStart) / 1e6);
  }
}
