package dev.proxima.proxy.cli;

import picocli.CommandLine.Option;

/** Which labelled Services this proxy takes, shared by run and the offline commands. */
final class ServiceProxyNameOption {
  @Option(
      names = "--service-proxy-name",
      defaultValue = "${env:PROXIMA_SERVICE_PROXY_NAME}",
      description =
          "Handle only the Services labelled service.kubernetes.io/service-proxy-name with this"
              + " value, to run beside the default proxy; unset: every Service without that label.")
  String value;
}
