package dev.proxima.e2e.netns;

import dev.proxima.proxy.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs a {@link ManifestContainer} with podman the way the kubelet would run it: its network
 * namespace, user, capabilities, read-only root, no privilege escalation, memory limit, the
 * environment, the volumes and the service account token, and the manifest's command and args over
 * the image's entrypoint and cmd.
 */
final class Podman {
  private static final Pattern MEMORY = Pattern.compile("(\\d+)(Ki|Mi|Gi)?");

  private Podman() {}

  /** What the harness gives the container besides the manifest: where it runs and its files. */
  record Sandbox(String containerName, String networkNamespace, Path podDir, Path serviceAccount) {}

  /** The `podman run` command line for {@code container} in {@code sandbox}. */
  static List<String> runCommand(ManifestContainer container, Sandbox sandbox) {
    var command = new ArrayList<String>(List.of("podman", "run", "--rm", "--pull=never"));
    command.add("--name=" + sandbox.containerName());
    command.addAll(runtimeOptions());
    command.add("--network=ns:/run/netns/" + sandbox.networkNamespace());
    if (container.runAsUser() != null) {
      command.add(
          "--user="
              + container.runAsUser()
              + (container.runAsGroup() == null ? "" : ":" + container.runAsGroup()));
    }
    if (container.runAsNonRoot()
        && effectiveUser(container, sandbox.podDir()).matches("0|root|0:.*|root:.*|")) {
      throw new AssertionError(
          container.name()
              + " has runAsNonRoot, but runs as '"
              + effectiveUser(container, sandbox.podDir())
              + "': the kubelet would refuse to start it");
    }
    container.dropCapabilities().forEach(c -> command.add("--cap-drop=" + c));
    container.addCapabilities().forEach(c -> command.add("--cap-add=" + c));
    if (container.privileged()) {
      command.add("--privileged");
    }
    if (container.readOnlyRootFilesystem()) {
      // podman would otherwise put writable tmpfs on /tmp, /run and /var/tmp; the kubelet does not.
      command.addAll(List.of("--read-only", "--read-only-tmpfs=false"));
    }
    if (!container.allowPrivilegeEscalation()) {
      command.add("--security-opt=no-new-privileges");
    }
    container.memoryLimit().ifPresent(limit -> command.add("--memory=" + podmanMemory(limit)));
    container.env().forEach((name, value) -> command.add("--env=" + name + "=" + value));
    int volume = 0;
    for (var mount : container.mounts()) {
      var source =
          mount.emptyDir() ? emptyDir(sandbox.podDir(), volume++) : hostPath(mount, sandbox);
      command.add("--volume=" + source + ":" + mount.mountPath() + (mount.readOnly() ? ":ro" : ""));
    }
    if (container.serviceAccountToken()) {
      command.add(
          "--volume="
              + sandbox.serviceAccount()
              + ":/var/run/secrets/kubernetes.io/serviceaccount:ro");
    }
    if (!container.command().isEmpty()) {
      command.add("--entrypoint=" + json(container.command()));
    }
    command.add(container.image());
    command.addAll(container.args());
    return command;
  }

  /**
   * The OCI runtime and rlimits. crun refuses this machine's hybrid cgroup layout, so runc; podman
   * 4.3 sets its own rlimits (1048576 open files, 32768 processes), above what this sandbox lets a
   * process raise to, so the open-files limit is this JVM's own and the process limit podman's.
   */
  static List<String> runtimeOptions() {
    var runtime = System.getProperty("proxima.e2e.podman-runtime", "runc");
    long openFiles = openFilesLimit();
    return List.of(
        "--runtime=" + runtime,
        "--ulimit=nofile=" + openFiles + ":" + openFiles,
        "--ulimit=nproc=32768:32768");
  }

  private static long openFilesLimit() {
    try {
      for (var line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          var fields = line.substring("Max open files".length()).trim().split("\\s+");
          return Long.parseLong(fields[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through to a limit every Linux allows
    }
    return 1024;
  }

  private static String effectiveUser(ManifestContainer container, Path scratch) {
    if (container.runAsUser() != null) {
      return String.valueOf(container.runAsUser());
    }
    var result =
        HostTools.run(
            scratch, "podman", "image", "inspect", "--format={{.Config.User}}", container.image());
    return result.stdout().strip();
  }

  /** Kubernetes quantities as podman's --memory wants them: 512Mi is 512m. */
  static String podmanMemory(String quantity) {
    var matcher = MEMORY.matcher(quantity);
    if (!matcher.matches()) {
      throw new AssertionError("memory limit " + quantity + " is not run here");
    }
    var unit = matcher.group(2) == null ? "" : matcher.group(2).substring(0, 1).toLowerCase();
    return matcher.group(1) + (unit.isEmpty() ? "b" : unit);
  }

  /** A fresh directory, writable by any user, as the kubelet makes an emptyDir. */
  private static Path emptyDir(Path podDir, int index) {
    try {
      var dir = Files.createDirectories(podDir.resolve("empty-dir-" + index));
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The host path, created like the kubelet does for FileOrCreate and DirectoryOrCreate. A plain
   * hostPath that this machine lacks (a test machine may have no /lib/modules) becomes an empty
   * directory of the pod's: on a node the kubelet would mount whatever is there.
   */
  private static Path hostPath(ManifestContainer.Mount mount, Sandbox sandbox) {
    var path = Path.of(mount.hostPath());
    try {
      if (!Files.exists(path)) {
        switch (mount.hostPathType()) {
          case "FileOrCreate" -> Files.createFile(path);
          case "DirectoryOrCreate" -> Files.createDirectories(path);
          case "" -> {
            return Files.createDirectories(
                sandbox.podDir().resolve("host" + mount.hostPath().replace('/', '-')));
          }
          default ->
              throw new AssertionError(
                  "hostPath " + path + " (" + mount.hostPathType() + ") does not exist here");
        }
      }
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String json(List<String> values) {
    var out = new StringBuilder("[");
    for (int i = 0; i < values.size(); i++) {
      out.append(i == 0 ? "" : ",")
          .append('"')
          .append(values.get(i).replace("\\", "\\\\").replace("\"", "\\\""))
          .append('"');
    }
    return out.append(']').toString();
  }

  /**
   * Starts {@code podman run} attached, its output appended to {@code log}. {@code scratch} takes
   * the files of the podman commands that go with it.
   */
  static Process start(List<String> command, String containerName, Path log, Path scratch) {
    remove(scratch, containerName);
    try {
      var client =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      return new ContainerProcess(client, containerName, scratch);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  /** Removes the container at once (SIGKILL), whether or not it runs. */
  static void remove(Path scratch, String containerName) {
    HostTools.run(scratch, "podman", "rm", "--force", "--time=0", "--ignore", containerName);
  }

  /** {@code podman exec} in a running container. */
  static HostTools.Result exec(Path scratch, String containerName, String... command) {
    var full = new ArrayList<>(List.of("podman", "exec", containerName));
    full.addAll(List.of(command));
    return HostTools.run(scratch, null, full);
  }

  /**
   * The attached {@code podman run} client as the container's process: killing it removes the
   * container (killing the client alone would leave the container running).
   */
  private static final class ContainerProcess extends Process {
    private final Process client;
    private final String containerName;
    private final Path scratch;

    ContainerProcess(Process client, String containerName, Path scratch) {
      this.client = client;
      this.containerName = containerName;
      this.scratch = scratch;
    }

    @Override
    public OutputStream getOutputStream() {
      return client.getOutputStream();
    }

    @Override
    public InputStream getInputStream() {
      return client.getInputStream();
    }

    @Override
    public InputStream getErrorStream() {
      return client.getErrorStream();
    }

    @Override
    public int waitFor() throws InterruptedException {
      return client.waitFor();
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
      return client.waitFor(timeout, unit);
    }

    @Override
    public int exitValue() {
      return client.exitValue();
    }

    @Override
    public boolean isAlive() {
      return client.isAlive();
    }

    @Override
    public void destroy() {
      destroyForcibly();
    }

    @Override
    public Process destroyForcibly() {
      remove(scratch, containerName);
      client.destroyForcibly();
      return this;
    }
  }
}
