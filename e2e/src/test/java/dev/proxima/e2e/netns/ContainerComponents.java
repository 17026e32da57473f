package dev.proxima.e2e.netns;

import dev.proxima.e2e.deploy.Kustomize;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.testing.HostTools;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The images as containers, run the way deploy/overlays/replace-kube-proxy says: an overlay of the
 * operator's (API server address, pod CIDRs, image tag) is rendered with {@code kubectl kustomize},
 * and each container runs with podman as the kubelet would run it ({@link Podman}). The proxy
 * shares its node's network namespace (hostNetwork), the controller runs in the fabric namespace,
 * its "pod network". The API server is reached over TLS, as in a cluster: the harness plays the
 * kubelet with a service account token and CA certificate, and the {@code kubernetes} Service
 * address it injects (127.0.0.1 in the fabric) is reachable only from the controller's network, as
 * a ClusterIP is only once a proxy serves it. The proxy must use the address the manifests give it.
 */
final class ContainerComponents implements Components {
  static final String NAMESPACE = "proxima-system";
  static final int API_TLS_PORT = 6444;
  private static final Pattern VERSION = Pattern.compile("(?m)^  <version>([^<]+)</version>$");
  private static boolean imagesBuilt;

  private final Wiring wiring;
  private final Path dir;
  private final Kustomize.Rendered install;
  private final Kustomize.Rendered cleanup;
  private final Path serviceAccount;
  private final Process tlsRelay;

  ContainerComponents(Wiring wiring) {
    this.wiring = wiring;
    this.dir = wiring.workDir().resolve("containers");
    var repository = Kustomize.repositoryRoot();
    var version = projectVersion(repository);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    buildImages(repository, dir.resolve("images-build.log"));
    var kubectl =
        Kustomize.kubectl().orElseThrow(() -> new AssertionError("kubectl is not on the PATH"));
    install =
        render(kubectl, repository, "install", "deploy/overlays/replace-kube-proxy", version, true);
    cleanup = render(kubectl, repository, "cleanup", "deploy/cleanup", version, false);
    var tls = Certificates.create(dir.resolve("pki"));
    serviceAccount = serviceAccount(dir.resolve("serviceaccount"), tls.ca());
    tlsRelay = startTlsRelay(wiring.layout().fabric(), tls.serverPem(), wiring.apiSocket());
  }

  // --- the images and the manifests ----------------------------------------------------------

  /** deploy/images/build.sh with the jars the reactor built, once per test run. */
  private static synchronized void buildImages(Path repository, Path log) {
    if (imagesBuilt) {
      return;
    }
    var started = Instant.now();
    try {
      var process =
          new ProcessBuilder(repository.resolve("deploy/images/build.sh").toString())
              .directory(repository.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      process.environment().put("SKIP_JARS", "1");
      process.environment().put("CONTAINER_ENGINE", "podman");
      var running = process.start();
      if (!running.waitFor(20, TimeUnit.MINUTES)) {
        running.destroyForcibly();
        throw new AssertionError("deploy/images/build.sh did not finish in 20 minutes; see " + log);
      }
      if (running.exitValue() != 0) {
        throw new AssertionError(
            "deploy/images/build.sh exited " + running.exitValue() + ":\n" + tail(log, 30));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    imagesBuilt = true;
    System.out.printf(
        "container e2e: images built in %d ms (log %s)%n",
        Duration.between(started, Instant.now()).toMillis(), log);
  }

  static String projectVersion(Path repository) {
    try {
      var matcher = VERSION.matcher(Files.readString(repository.resolve("pom.xml")));
      if (!matcher.find()) {
        throw new AssertionError("no project version in pom.xml");
      }
      // build.sh tags the release version, as the manifests name it (ImageTagsTest).
      return matcher.group(1).replaceFirst("-SNAPSHOT$", "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The operator's overlay on {@code base}: the image tag build.sh gave the images and, for the
   * install, the settings replace-kube-proxy asks for. Written under target/, next to the sources,
   * because kustomize of kubectl 1.20 wants bases as relative paths.
   */
  private Kustomize.Rendered render(
      Path kubectl,
      Path repository,
      String name,
      String base,
      String version,
      boolean proxySettings) {
    var overlay = repository.resolve("e2e/target/container-e2e-overlays").resolve(name);
    var text =
        new StringBuilder("bases:\n  - ")
            .append(overlay.relativize(repository.resolve(base)))
            .append("\n");
    if (proxySettings) {
      text.append(
          """
          configMapGenerator:
            - name: proxima-proxy
              namespace: proxima-system
              behavior: merge
              literals:
                - api-server-host=%s
                - api-server-port=%d
                - cluster-cidr=%s
          """
              .formatted(Layout.API_ADDRESS, API_TLS_PORT, Layout.CLUSTER_CIDRS));
    }
    text.append("images:\n");
    for (var image : List.of("proxima/controller", "proxima/proxy")) {
      text.append("  - name: ").append(image).append("\n    newTag: ").append(version).append("\n");
    }
    try {
      Files.createDirectories(overlay);
      Files.writeString(overlay.resolve("kustomization.yaml"), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Kustomize.render(kubectl, repository, overlay.toString());
  }

  /** The proxy DaemonSet's container as it would run on {@code node}. */
  ManifestContainer proxy(Layout.Node node) {
    return daemonSetContainer(install, "proxima-proxy", "proxy", false, node);
  }

  ManifestContainer controller() {
    var deployment = install.one(Deployment.class, "proxima-controller");
    return container(
        install,
        deployment.getSpec().getTemplate().getSpec(),
        "controller",
        false,
        new ManifestContainer.Pod("proxima-controller-e2e", NAMESPACE, "node-a1"));
  }

  /** The cleanup DaemonSet's init container (removes the rules) on {@code node}. */
  ManifestContainer cleanup(Layout.Node node) {
    return daemonSetContainer(cleanup, "proxima-cleanup", "cleanup", true, node);
  }

  /** The cleanup DaemonSet's idle container, which keeps the pod once the node is clean. */
  ManifestContainer cleanupDone(Layout.Node node) {
    return daemonSetContainer(cleanup, "proxima-cleanup", "done", false, node);
  }

  private ManifestContainer daemonSetContainer(
      Kustomize.Rendered rendered, String daemonSet, String name, boolean init, Layout.Node node) {
    var spec = rendered.one(DaemonSet.class, daemonSet).getSpec().getTemplate().getSpec();
    return container(
        rendered,
        spec,
        name,
        init,
        new ManifestContainer.Pod(daemonSet + "-" + node.name(), NAMESPACE, node.name()));
  }

  private ManifestContainer container(
      Kustomize.Rendered rendered,
      PodSpec spec,
      String name,
      boolean init,
      ManifestContainer.Pod pod) {
    List<Container> containers = init ? spec.getInitContainers() : spec.getContainers();
    var container =
        containers.stream()
            .filter(c -> c.getName().equals(name))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError(rendered.directory() + " has no container " + name));
    // What the kubelet injects for the `kubernetes` Service (see the class comment).
    var kubeletEnv =
        Map.of(
            "KUBERNETES_SERVICE_HOST",
            "127.0.0.1",
            "KUBERNETES_SERVICE_PORT",
            String.valueOf(API_TLS_PORT));
    return ManifestContainer.of(rendered, spec, container, pod, kubeletEnv);
  }

  // --- running -------------------------------------------------------------------------------

  /** The network namespace a container of this pod shares: the node's, or the fabric. */
  String networkNamespaceOf(ManifestContainer container, Layout.Node node) {
    return container.hostNetwork() ? node.namespace() : wiring.layout().fabric();
  }

  Process start(ManifestContainer container, String networkNamespace, Path log) {
    var name = containerName(container);
    var sandbox = new Podman.Sandbox(name, networkNamespace, podDir(container), serviceAccount);
    return Podman.start(Podman.runCommand(container, sandbox), name, log, scratch());
  }

  /** Runs a container that exits by itself (an init container); its exit code and output. */
  HostTools.Result runToCompletion(ManifestContainer container, String networkNamespace) {
    var name = containerName(container);
    var sandbox = new Podman.Sandbox(name, networkNamespace, podDir(container), serviceAccount);
    Podman.remove(scratch(), name);
    return HostTools.run(scratch(), null, Podman.runCommand(container, sandbox));
  }

  /** The command the image puts on the PATH, in the node's proxy container: kubectl exec's way. */
  @Override
  public HostTools.Result explainLive(Layout.Node node, String... args) {
    var command = new ArrayList<>(List.of("proxima-proxy", "explain", "--live"));
    command.addAll(List.of(args));
    return execInProxy(node, command.toArray(String[]::new));
  }

  /** {@code podman exec} in {@code node}'s proxy container. */
  public HostTools.Result execInProxy(Layout.Node node, String... command) {
    return exec(containerName(proxy(node)), command);
  }

  /** {@code podman exec} in one of this cluster's running containers. */
  HostTools.Result exec(String containerName, String... command) {
    return Podman.exec(scratch(), containerName, command);
  }

  /** Where the podman commands' input and output files go. */
  private Path scratch() {
    try {
      return Files.createDirectories(dir.resolve("podman"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String containerName(ManifestContainer container) {
    return "proxima-e2e-" + container.pod() + "-" + container.name();
  }

  private Path podDir(ManifestContainer container) {
    try {
      return Files.createDirectories(dir.resolve("pods").resolve(container.pod()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Process startController(Path log) {
    var controller = controller();
    return start(controller, wiring.layout().fabric(), log);
  }

  @Override
  public int controllerStatus(String path) {
    var port = controller().ports().get("health");
    if (port == null) {
      return -1;
    }
    return wiring.clients().httpStatus(wiring.layout().fabric(), Layout.API_ADDRESS, port, path);
  }

  @Override
  public Process startProxy(Layout.Node node, ProxyMode mode, Path log) {
    if (mode != ProxyMode.nftables) {
      throw new UnsupportedOperationException(
          "the manifests run the proxy in its default mode, nftables; asked for " + mode);
    }
    var proxy = proxy(node);
    return start(proxy, networkNamespaceOf(proxy, node), log);
  }

  // --- the API server over TLS ---------------------------------------------------------------

  /** The files the kubelet mounts for a service account: token, CA certificate, namespace. */
  private static Path serviceAccount(Path directory, String caCertificate) {
    try {
      Files.createDirectories(directory);
      Files.writeString(directory.resolve("token"), "e2e-token-not-checked");
      Files.writeString(directory.resolve("ca.crt"), caCertificate);
      Files.writeString(directory.resolve("namespace"), NAMESPACE);
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** TLS on port {@link #API_TLS_PORT} of every fabric address, to the API server's socket. */
  private static Process startTlsRelay(String fabric, Path serverPem, Path apiSocket) {
    return ApiRelay.start(
        List.of(
            "ip",
            "netns",
            "exec",
            fabric,
            "socat",
            "OPENSSL-LISTEN:" + API_TLS_PORT + ",fork,reuseaddr,verify=0,cert=" + serverPem,
            "UNIX-CONNECT:" + apiSocket));
  }

  /** A CA and a server certificate for the API addresses, made with openssl. */
  record Certificates(String ca, Path serverPem) {
    static Certificates create(Path directory) {
      try {
        Files.createDirectories(directory);
        Files.writeString(
            directory.resolve("server.ext"),
            "subjectAltName=IP:127.0.0.1,IP:" + Layout.API_ADDRESS + "\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      var newKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
      openssl(
          directory,
          "req -x509 " + newKey + " -keyout ca.key -out ca.crt -days 2 -subj /CN=e2e-ca");
      openssl(
          directory, "req " + newKey + " -keyout server.key -out server.csr -subj /CN=apiserver");
      openssl(
          directory,
          "x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt"
              + " -days 2 -extfile server.ext");
      try {
        var pem = directory.resolve("server.pem");
        Files.writeString(
            pem,
            Files.readString(directory.resolve("server.crt"))
                + Files.readString(directory.resolve("server.key")));
        return new Certificates(Files.readString(directory.resolve("ca.crt")), pem);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** openssl with {@code arguments}, split at spaces (none of them contains one). */
    private static void openssl(Path directory, String arguments) {
      var command = new ArrayList<String>(List.of("openssl"));
      command.addAll(List.of(arguments.split(" ")));
      try {
        var process =
            new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .start();
        var output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
          throw new AssertionError(command + " failed:\n" + output);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static String tail(Path file, int lines) {
    try {
      var all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  @Override
  public void close() {
    tlsRelay.destroyForcibly();
  }
}
