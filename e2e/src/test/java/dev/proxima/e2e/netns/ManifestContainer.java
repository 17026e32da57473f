package dev.proxima.e2e.netns;

import dev.proxima.e2e.deploy.Kustomize;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One container of a rendered manifest, with everything the kubelet would work out before starting
 * it: the environment with its ConfigMap and downward-API references and {@code $(VAR)} references
 * resolved, the user and capabilities from the pod's and the container's securityContext, named
 * probe ports resolved to numbers, and each volume mount's source. Anything the test cannot honour
 * is an error, never silently dropped.
 */
record ManifestContainer(
    String pod,
    String name,
    String image,
    List<String> command,
    List<String> args,
    Map<String, String> env,
    Long runAsUser,
    Long runAsGroup,
    boolean runAsNonRoot,
    List<String> dropCapabilities,
    List<String> addCapabilities,
    boolean readOnlyRootFilesystem,
    boolean allowPrivilegeEscalation,
    boolean privileged,
    boolean hostNetwork,
    boolean serviceAccountToken,
    Map<String, Integer> ports,
    List<HttpProbe> probes,
    List<Mount> mounts,
    Optional<String> memoryLimit) {

  /** An httpGet probe with its port as a number. */
  record HttpProbe(String kind, String path, int port) {}

  /** A volume mount: a host path, or an emptyDir (hostPath null). */
  record Mount(String mountPath, String hostPath, String hostPathType, boolean readOnly) {
    boolean emptyDir() {
      return hostPath == null;
    }
  }

  /** What the kubelet knows about the pod: its name, namespace and node. */
  record Pod(String name, String namespace, String nodeName) {}

  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  static ManifestContainer of(
      Kustomize.Rendered rendered,
      PodSpec spec,
      Container container,
      Pod pod,
      Map<String, String> kubeletEnv) {
    var podSecurity = spec.getSecurityContext();
    var security = container.getSecurityContext();
    Long user =
        first(
            security == null ? null : security.getRunAsUser(),
            podSecurity == null ? null : podSecurity.getRunAsUser());
    Long group =
        first(
            security == null ? null : security.getRunAsGroup(),
            podSecurity == null ? null : podSecurity.getRunAsGroup());
    Boolean nonRoot =
        first(
            security == null ? null : security.getRunAsNonRoot(),
            podSecurity == null ? null : podSecurity.getRunAsNonRoot());
    var capabilities = security == null ? null : security.getCapabilities();

    var ports = new LinkedHashMap<String, Integer>();
    for (var port : list(container.getPorts())) {
      ports.put(
          port.getName() == null ? String.valueOf(port.getContainerPort()) : port.getName(),
          port.getContainerPort());
    }
    var probes = new ArrayList<HttpProbe>();
    addProbe(probes, "livenessProbe", container.getLivenessProbe(), ports, container.getName());
    addProbe(probes, "readinessProbe", container.getReadinessProbe(), ports, container.getName());
    addProbe(probes, "startupProbe", container.getStartupProbe(), ports, container.getName());

    var volumes = new LinkedHashMap<String, Volume>();
    list(spec.getVolumes()).forEach(v -> volumes.put(v.getName(), v));
    var mounts = new ArrayList<Mount>();
    for (var mount : list(container.getVolumeMounts())) {
      var volume = volumes.get(mount.getName());
      if (volume == null) {
        throw new AssertionError(
            container.getName()
                + " mounts volume "
                + mount.getName()
                + ", which the pod does not have");
      }
      boolean readOnly = Boolean.TRUE.equals(mount.getReadOnly());
      if (volume.getHostPath() != null) {
        mounts.add(
            new Mount(
                mount.getMountPath(),
                volume.getHostPath().getPath(),
                nullToEmpty(volume.getHostPath().getType()),
                readOnly));
      } else if (volume.getEmptyDir() != null) {
        mounts.add(new Mount(mount.getMountPath(), null, null, readOnly));
      } else {
        throw new AssertionError(
            "volume " + volume.getName() + ": only hostPath and emptyDir are run here");
      }
    }

    Quantity memory =
        container.getResources() == null || container.getResources().getLimits() == null
            ? null
            : container.getResources().getLimits().get("memory");

    return new ManifestContainer(
        pod.name(),
        container.getName(),
        container.getImage(),
        list(container.getCommand()),
        list(container.getArgs()),
        environment(rendered, pod, container, kubeletEnv),
        user,
        group,
        Boolean.TRUE.equals(nonRoot),
        capabilities == null ? List.of() : list(capabilities.getDrop()),
        capabilities == null ? List.of() : list(capabilities.getAdd()),
        security != null && Boolean.TRUE.equals(security.getReadOnlyRootFilesystem()),
        // Kubernetes' default is true.
        security == null || !Boolean.FALSE.equals(security.getAllowPrivilegeEscalation()),
        security != null && Boolean.TRUE.equals(security.getPrivileged()),
        Boolean.TRUE.equals(spec.getHostNetwork()),
        !Boolean.FALSE.equals(spec.getAutomountServiceAccountToken()),
        ports,
        probes,
        mounts,
        Optional.ofNullable(memory).map(Quantity::toString));
  }

  /** The kubelet's variables first, then the container's, each able to refer to earlier ones. */
  private static Map<String, String> environment(
      Kustomize.Rendered rendered, Pod pod, Container container, Map<String, String> kubeletEnv) {
    var env = new LinkedHashMap<>(kubeletEnv);
    for (EnvVar variable : list(container.getEnv())) {
      env.put(variable.getName(), value(rendered, pod, variable, env));
    }
    if (container.getEnvFrom() != null && !container.getEnvFrom().isEmpty()) {
      throw new AssertionError(container.getName() + ": envFrom is not run here");
    }
    return env;
  }

  private static String value(
      Kustomize.Rendered rendered, Pod pod, EnvVar variable, Map<String, String> earlier) {
    if (variable.getValueFrom() == null) {
      return expand(nullToEmpty(variable.getValue()), earlier);
    }
    var from = variable.getValueFrom();
    if (from.getFieldRef() != null) {
      return switch (from.getFieldRef().getFieldPath()) {
        case "metadata.name" -> pod.name();
        case "metadata.namespace" -> pod.namespace();
        case "spec.nodeName" -> pod.nodeName();
        default ->
            throw new AssertionError(
                variable.getName()
                    + ": fieldRef "
                    + from.getFieldRef().getFieldPath()
                    + " is not run here");
      };
    }
    if (from.getConfigMapKeyRef() != null) {
      var ref = from.getConfigMapKeyRef();
      var map =
          rendered
              .configMap(pod.namespace(), ref.getName())
              .orElseThrow(
                  () ->
                      new AssertionError(
                          variable.getName()
                              + " refers to ConfigMap "
                              + ref.getName()
                              + ", which the manifests do not have"));
      var data = map.getData() == null ? Map.<String, String>of() : map.getData();
      if (!data.containsKey(ref.getKey())) {
        throw new AssertionError(
            variable.getName()
                + " refers to key "
                + ref.getKey()
                + " of ConfigMap "
                + ref.getName()
                + ", which has only "
                + data.keySet());
      }
      return data.get(ref.getKey());
    }
    throw new AssertionError(
        variable.getName() + ": only fieldRef and configMapKeyRef are run here");
  }

  /** Kubernetes' $(VAR) expansion: defined variables are replaced, $$ escapes, others stay. */
  static String expand(String value, Map<String, String> defined) {
    Matcher matcher = REFERENCE.matcher(value);
    var out = new StringBuilder();
    while (matcher.find()) {
      String replacement;
      if (matcher.group(1) == null) {
        replacement = "$";
      } else {
        replacement = defined.getOrDefault(matcher.group(1), matcher.group());
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  private static void addProbe(
      List<HttpProbe> probes,
      String kind,
      Probe probe,
      Map<String, Integer> ports,
      String container) {
    if (probe == null) {
      return;
    }
    if (probe.getHttpGet() == null) {
      throw new AssertionError(container + " " + kind + ": only httpGet probes are run here");
    }
    probes.add(
        new HttpProbe(
            kind,
            probe.getHttpGet().getPath(),
            port(probe.getHttpGet().getPort(), ports, container + " " + kind)));
  }

  private static int port(IntOrString port, Map<String, Integer> ports, String where) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    var number = ports.get(port.getStrVal());
    if (number == null) {
      throw new AssertionError(
          where
              + " names port "
              + port.getStrVal()
              + ", which the container does not declare (it has "
              + ports
              + ")");
    }
    return number;
  }

  private static <T> T first(T preferred, T fallback) {
    return preferred != null ? preferred : fallback;
  }

  private static <T> List<T> list(List<T> values) {
    return values == null ? List.of() : values;
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }
}
