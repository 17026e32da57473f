package dev.proxima.e2e.netns;

/** The data plane the node proxies program; the value is the proxy's {@code --mode}. */
enum ProxyMode {
  NFTABLES("nftables"),
  IPTABLES("iptables");

  final String flag;

  ProxyMode(String flag) {
    this.flag = flag;
  }
}
