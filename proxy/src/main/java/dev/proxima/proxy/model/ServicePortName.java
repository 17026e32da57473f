package dev.proxima.proxy.model;

import dev.proxima.model.ObjectKey;
import java.util.Comparator;
import java.util.Objects;

/** As kube-proxy identifies a Service port; the port name is empty for an unnamed port. */
public record ServicePortName(ObjectKey service, String port, Protocol protocol)
    implements Comparable<ServicePortName> {
  private static final Comparator<ServicePortName> ORDER =
      Comparator.comparing(ServicePortName::service)
          .thenComparing(ServicePortName::port)
          .thenComparing(ServicePortName::protocol);

  public ServicePortName {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(port, "port");
    Objects.requireNonNull(protocol, "protocol");
  }

  @Override
  public int compareTo(ServicePortName other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return port.isEmpty() ? service.toString() : service + ":" + port;
  }
}
