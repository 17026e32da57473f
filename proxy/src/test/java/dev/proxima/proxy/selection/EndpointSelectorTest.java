package dev.proxima.proxy.selection;

import static dev.proxima.proxy.selection.TopologyLevel.NONE;
import static dev.proxima.proxy.selection.TopologyLevel.PREFER_SAME_NODE;
import static dev.proxima.proxy.selection.TopologyLevel.PREFER_SAME_ZONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.proxima.model.ObjectKey;
import dev.proxima.proxy.model.Endpoint;
import dev.proxima.proxy.model.Protocol;
import dev.proxima.proxy.model.ServicePort;
import dev.proxima.proxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EndpointSelectorTest {
  private static final String NODE = "node-1";
  private static final ServicePortName NAME =
      new ServicePortName(new ObjectKey("ns", "svc"), "http", Protocol.TCP);

  // ---------------------------------------------------------------------------------------------
  // The table. Comparison rules are upstream's (pkg/proxy/topology_test.go):
  // - an expected list that is null means the list must be null (the Service does not use it);
  // - any other expected list is compared as a set, and an expected empty set also accepts null;
  // - without an explicit allReachable, it is the cluster set when local is null, the local set
  //   when cluster is null, and otherwise must be given;
  // - hasAnyEndpoints is expected true iff the expected allReachable is non-empty or the case is
  //   marked onlyRemote.
  // On top of upstream's rules every case also checks the topology level, that each list is sorted
  // by IP then port, and that allReachable holds each ip:port once.
  // ---------------------------------------------------------------------------------------------

  static Stream<Case> categorizeEndpointsCases() {
    return Stream.of(
        // --- upstream TestCategorizeEndpoints (kubernetes/kubernetes @ 6c039d90), all 26 ---
        upstream(
                "should use topology since all endpoints have hints, node has a zone label and and"
                    + " there are endpoints for the node's zone")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready(),
                ep("10.1.2.4:80").zones("zone-b").ready(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        upstream("externalTrafficPolicy: Local, topology ignored for Local endpoints")
            .zone("zone-a")
            .service(policies(false, true, 8080))
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready().local(),
                ep("10.1.2.4:80").zones("zone-b").ready().local(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .local("10.1.2.3:80", "10.1.2.4:80")
            .all("10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        upstream("internalTrafficPolicy: Local, topology ignored for Local endpoints")
            .zone("zone-a")
            .service(policies(true, false, 8080))
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready().local(),
                ep("10.1.2.4:80").zones("zone-b").ready().local(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .local("10.1.2.3:80", "10.1.2.4:80")
            .all("10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        upstream("empty node labels")
            .zone(null)
            .service(clusterIpOnly())
            .endpoints(ep("10.1.2.3:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80")
            .level(NONE),
        upstream("empty zone label")
            .zone("")
            .service(clusterIpOnly())
            .endpoints(ep("10.1.2.3:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80")
            .level(NONE),
        upstream("node in different zone, no endpoint filtering")
            .zone("zone-b")
            .service(clusterIpOnly())
            .endpoints(ep("10.1.2.3:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80")
            .level(NONE),
        upstream("unready endpoint")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready(),
                ep("10.1.2.4:80").zones("zone-b").ready(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a"))
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_ZONE),
        upstream("only unready endpoints in same zone (should not filter)")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a"),
                ep("10.1.2.4:80").zones("zone-b").ready(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a"))
            .cluster("10.1.2.4:80", "10.1.2.5:80")
            .level(NONE),
        upstream("missing hints, no filtering applied")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready(),
                ep("10.1.2.4:80").zones("zone-b").ready(),
                ep("10.1.2.5:80").ready(),
                ep("10.1.2.6:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80")
            .level(NONE),
        upstream("multiple hints per endpoint, filtering includes any endpoint with zone included")
            .zone("zone-c")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a", "zone-b", "zone-c").ready(),
                ep("10.1.2.4:80").zones("zone-b", "zone-c").ready(),
                ep("10.1.2.5:80").zones("zone-b", "zone-d").ready(),
                ep("10.1.2.6:80").zones("zone-c").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        upstream("conflicting topology and localness require merging allEndpoints")
            .zone("zone-a")
            .service(policies(false, true, 8080))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-a").ready().local(),
                ep("10.0.0.1:80").zones("zone-b").ready().local(),
                ep("10.0.0.2:80").zones("zone-a").ready(),
                ep("10.0.0.3:80").zones("zone-b").ready())
            .cluster("10.0.0.0:80", "10.0.0.2:80")
            .local("10.0.0.0:80", "10.0.0.1:80")
            .all("10.0.0.0:80", "10.0.0.1:80", "10.0.0.2:80")
            .level(PREFER_SAME_ZONE),
        upstream("internalTrafficPolicy: Local, with empty endpoints")
            .service(policies(true, false, 0))
            .endpoints()
            .local()
            .level(NONE),
        upstream("internalTrafficPolicy: Local, but all endpoints are remote")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").ready(), ep("10.0.0.1:80").ready())
            .local()
            .onlyRemote()
            .level(NONE),
        upstream("internalTrafficPolicy: Local, all endpoints are local")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready().local())
            .local("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("internalTrafficPolicy: Local, some endpoints are local")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready())
            .local("10.0.0.0:80")
            .level(NONE),
        upstream("Cluster traffic policy, endpoints not Ready")
            .service(clusterIpOnly())
            .endpoints(ep("10.0.0.0:80"), ep("10.0.0.1:80"))
            .cluster()
            .level(NONE),
        upstream("Cluster traffic policy, some endpoints are Ready")
            .service(clusterIpOnly())
            .endpoints(ep("10.0.0.0:80"), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.1:80")
            .level(NONE),
        upstream("Cluster traffic policy, all endpoints are terminating")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.0.0.0:80").serving().terminating().local(),
                ep("10.0.0.1:80").serving().terminating())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("iTP: Local, eTP: Cluster, some endpoints local")
            .service(policies(true, false, 8080))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("iTP: Cluster, eTP: Local, some endpoints local")
            .service(policies(false, true, 8080))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("iTP: Local, eTP: Local, some endpoints local")
            .service(policies(true, true, 8080))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("iTP: Local, eTP: Local, all endpoints remote")
            .service(policies(true, true, 8080))
            .endpoints(ep("10.0.0.0:80").ready(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local()
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("iTP: Local, eTP: Local, all endpoints remote and terminating")
            .service(policies(true, true, 8080))
            .endpoints(
                ep("10.0.0.0:80").serving().terminating(),
                ep("10.0.0.1:80").serving().terminating())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local()
            .all("10.0.0.0:80", "10.0.0.1:80")
            .onlyRemote()
            .level(NONE),
        upstream("iTP: Cluster, eTP: Local, with terminating endpoints")
            .service(policies(false, true, 8080))
            .endpoints(
                ep("10.0.0.0:80").ready(),
                ep("10.0.0.1:80").local(),
                ep("10.0.0.2:80").serving().terminating().local(),
                ep("10.0.0.3:80").serving().terminating())
            .cluster("10.0.0.0:80")
            .local("10.0.0.2:80")
            .all("10.0.0.0:80", "10.0.0.2:80")
            .level(NONE),
        upstream("externalTrafficPolicy ignored if not externally accessible")
            .service(policies(false, true, 0))
            .endpoints(ep("10.0.0.0:80").ready(), ep("10.0.0.1:80").ready().local())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        upstream("no cluster endpoints for iTP:Local internal-only service")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").ready(), ep("10.0.0.1:80").ready().local())
            .local("10.0.0.1:80")
            .all("10.0.0.1:80")
            .level(NONE),

        // --- PreferSameNode (upstream's later cases, as Antrea's port describes them) ---
        preferSameNode("a node hint for this node is available, so only that endpoint is used")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(fullyHinted())
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_NODE),
        preferSameNode("an endpoint without any hints means every endpoint is used")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready(),
                ep("10.1.2.5:80").ready(),
                ep("10.1.2.6:80").zones("zone-a").nodes("node-4").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80")
            .level(NONE),
        preferSameNode("an endpoint with a zone hint but no node hint drops to the zone level")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready(),
                ep("10.1.2.5:80").zones("zone-c").ready(),
                ep("10.1.2.6:80").zones("zone-a").nodes("node-4").ready())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        preferSameNode("no endpoint hinted for this node falls back to the zone")
            .node("node-0")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(fullyHinted())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .level(PREFER_SAME_ZONE),
        preferSameNode("every endpoint hinted for this node is used, also one with several hints")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready(),
                ep("10.1.2.6:80").zones("zone-a").nodes("node-4", "node-1").ready())
            .cluster("10.1.2.3:80", "10.1.2.6:80")
            .level(PREFER_SAME_NODE),
        preferSameNode(
                "eTP: Local, the Cluster list keeps what is hinted for this node, the Local list"
                    + " every ready local endpoint, and allReachable merges them")
            .zone("zone-a")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-a").nodes("node-1").ready().local(),
                ep("10.0.0.1:80").zones("zone-b").nodes("node-2").ready().local(),
                ep("10.0.0.2:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.0.0.3:80").zones("zone-b").nodes("node-3").ready())
            .cluster("10.0.0.0:80", "10.0.0.2:80")
            .local("10.0.0.0:80", "10.0.0.1:80")
            .all("10.0.0.0:80", "10.0.0.1:80", "10.0.0.2:80")
            .level(PREFER_SAME_NODE),
        preferSameNode(
                "eTP: Local, nothing on this node: no Local list, the zone fallback still gives"
                    + " the Service endpoints")
            .zone("zone-a")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.2:80").zones("zone-a").nodes("node-2").ready(),
                ep("10.0.0.3:80").zones("zone-b").nodes("node-3").ready())
            .cluster("10.0.0.2:80")
            .all("10.0.0.2:80")
            .level(PREFER_SAME_ZONE),
        preferSameNode(
                "eTP: Local, only a serving-terminating endpoint on this node: the Local list uses"
                    + " it and allReachable merges it with the node-filtered Cluster list")
            .zone("zone-a")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").serving().terminating().local(),
                ep("10.0.0.2:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.0.0.3:80").zones("zone-b").nodes("node-3").ready())
            .cluster("10.0.0.2:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.2:80")
            .level(PREFER_SAME_NODE),
        preferSameNode(
                "eTP: Local, node hints only for other nodes: the Cluster list falls back to the"
                    + " zone while the Local list keeps the local endpoint of another zone")
            .zone("zone-a")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-b").nodes("node-5").ready().local(),
                ep("10.0.0.2:80").zones("zone-a").nodes("node-2").ready(),
                ep("10.0.0.3:80").zones("zone-b").nodes("node-3").ready())
            .cluster("10.0.0.2:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.2:80")
            .level(PREFER_SAME_ZONE),

        // --- further paths of the newest topology.go ---
        path("no endpoints at all: the used Cluster list is absent, not empty (early return)")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints()
            .all()
            .level(NONE),
        path("no endpoints at all with eTP: Local: both used lists are absent (early return)")
            .service(policies(false, true, 30080))
            .endpoints()
            .all()
            .level(NONE),
        path("node hints without a zone label: PreferSameNode still applies")
            .zone(null)
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").nodes("node-1").ready(),
                ep("10.1.2.4:80").nodes("node-2").ready())
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_NODE),
        path("node hints without a zone label and none for this node: every endpoint is used")
            .node("node-0")
            .zone(null)
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80")
            .level(NONE),
        path("node hints only, none for this node: no zone fallback, every endpoint is used")
            .node("node-0")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").nodes("node-1").ready(),
                ep("10.1.2.4:80").nodes("node-2").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80")
            .level(NONE),
        path("an unready endpoint without hints does not block zone topology")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").ready(),
                ep("10.1.2.4:80").zones("zone-b").ready(),
                ep("10.1.2.5:80"))
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_ZONE),
        path("an unready endpoint without hints does not block node topology")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready(),
                ep("10.1.2.5:80").serving().terminating())
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_NODE),
        path("a node hint for this node on an unready endpoint only does not count")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("node-2").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("node-3").ready(),
                ep("10.1.2.5:80").zones("zone-a").nodes("node-1"))
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_ZONE),
        path("no ready endpoints: hints are ignored and every serving-terminating one is used")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.0.0.0:80").zones("zone-b").nodes("node-2").serving().terminating(),
                ep("10.0.0.1:80").zones("zone-a").nodes("node-1").serving().terminating(),
                ep("10.0.0.2:80").zones("zone-a").nodes("node-1"))
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        path("zone topology with eTP: Local and only a terminating local endpoint: the Local"
                + " list uses it and allReachable merges")
            .zone("zone-a")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-a").serving().terminating().local(),
                ep("10.0.0.1:80").zones("zone-a").ready(),
                ep("10.0.0.2:80").zones("zone-b").ready())
            .cluster("10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(PREFER_SAME_ZONE),
        path("zone topology with iTP: Local and eTP: Local: the Local list keeps local"
                + " endpoints of other zones, allReachable merges")
            .zone("zone-a")
            .service(policies(true, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-b").ready().local(),
                ep("10.0.0.1:80").zones("zone-a").ready(),
                ep("10.0.0.2:80").zones("zone-b").ready())
            .cluster("10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(PREFER_SAME_ZONE),
        path("ready and terminating counts as ready for both lists, so no fallback is taken")
            .service(policies(false, true, 30080))
            .endpoints(
                ep("10.0.0.0:80").ready().serving().terminating().local(),
                ep("10.0.0.1:80").serving().terminating().local(),
                ep("10.0.0.2:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.2:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.2:80")
            .level(NONE),
        path("a ready and terminating endpoint keeps the Cluster list off the terminating fallback")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.0.0.0:80").ready().serving().terminating(),
                ep("10.0.0.1:80").serving().terminating())
            .cluster("10.0.0.0:80")
            .level(NONE),
        path("not-serving terminating endpoints are never used")
            .service(clusterIpOnly())
            .endpoints(ep("10.0.0.0:80").terminating(), ep("10.0.0.1:80").terminating().local())
            .cluster()
            .level(NONE),
        path("a not-serving terminating local endpoint does not make a Local list")
            .service(policies(false, true, 30080))
            .endpoints(ep("10.0.0.0:80").terminating().local(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.1:80")
            .all("10.0.0.1:80")
            .level(NONE),
        path("iTP: Local falls back to the serving-terminating local endpoint")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").ready(), ep("10.0.0.1:80").serving().terminating().local())
            .local("10.0.0.1:80")
            .level(NONE),
        path("iTP: Local with only a remote terminating endpoint: no Local list, still endpoints")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").serving().terminating())
            .local()
            .onlyRemote()
            .level(NONE),
        path("iTP: Local with nothing usable anywhere: no Local list and no endpoints")
            .service(policies(true, false, 0))
            .endpoints(ep("10.0.0.0:80").local(), ep("10.0.0.1:80").terminating())
            .local()
            .level(NONE),
        path("iTP: Local with a load-balancer IP still uses the zone-filtered Cluster list")
            .zone("zone-a")
            .service(withLoadBalancerIp(true, false))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-b").ready().local(),
                ep("10.0.0.1:80").zones("zone-a").ready())
            .cluster("10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(PREFER_SAME_ZONE),
        path("eTP: Local with an external IP uses the Local list")
            .service(withExternalIp(false, true))
            .endpoints(ep("10.0.0.0:80").ready().local(), ep("10.0.0.1:80").ready())
            .cluster("10.0.0.0:80", "10.0.0.1:80")
            .local("10.0.0.0:80")
            .all("10.0.0.0:80", "10.0.0.1:80")
            .level(NONE),
        path("eTP: Local is ignored for a ClusterIP-only Service and topology still applies")
            .zone("zone-a")
            .service(policies(false, true, 0))
            .endpoints(
                ep("10.0.0.0:80").zones("zone-b").ready().local(),
                ep("10.0.0.1:80").zones("zone-a").ready(),
                ep("10.0.0.2:80").zones("zone-b").ready())
            .cluster("10.0.0.1:80")
            .level(PREFER_SAME_ZONE),
        path("an empty node name matches no node hint, not even an empty one")
            .node("")
            .zone("zone-a")
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("zone-a").nodes("").ready(),
                ep("10.1.2.4:80").zones("zone-b").nodes("").ready())
            .cluster("10.1.2.3:80")
            .level(PREFER_SAME_ZONE),
        path("a missing zone label matches no zone hint, not even an empty one")
            .zone(null)
            .service(clusterIpOnly())
            .endpoints(
                ep("10.1.2.3:80").zones("").ready(), ep("10.1.2.4:80").zones("zone-a").ready())
            .cluster("10.1.2.3:80", "10.1.2.4:80")
            .level(NONE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("categorizeEndpointsCases")
  void categorizesEndpointsLikeKubeProxy(Case c) {
    var selection = EndpointSelector.select(c.endpoints, c.service, c.node, c.zone);

    assertMatches("cluster endpoints", c.cluster, selection.clusterEndpoints());
    assertMatches("local endpoints", c.local, selection.localEndpoints());

    Set<String> expectedAll;
    if (c.cluster != null && c.local == null) {
      expectedAll = c.cluster;
    } else if (c.local != null && c.cluster == null) {
      expectedAll = c.local;
    } else {
      expectedAll = c.all;
    }
    assertThat(expectedAll).as("the case must give allReachable").isNotNull();
    assertThat(selection.allReachableEndpoints()).as("allReachable is never null").isNotNull();
    assertMatches("all reachable endpoints", expectedAll, selection.allReachableEndpoints());

    assertThat(selection.hasAnyEndpoints())
        .as("hasAnyEndpoints")
        .isEqualTo(!expectedAll.isEmpty() || c.onlyRemote);
    assertThat(selection.topology()).as("topology level").isEqualTo(c.level);

    for (var list :
        Arrays.asList(
            selection.clusterEndpoints(),
            selection.localEndpoints(),
            selection.allReachableEndpoints())) {
      if (list != null) {
        assertThat(list).isSortedAccordingTo(EndpointOrder.BY_ADDRESS);
      }
    }
    assertThat(addresses(selection.allReachableEndpoints())).doesNotHaveDuplicates();
    assertThat(selection.reason()).isNotBlank();
  }

  /** Upstream's rule: expected null means null; otherwise a set, where empty also accepts null. */
  private static void assertMatches(String what, Set<String> expected, List<Endpoint> actual) {
    if (expected == null) {
      assertThat(actual).as("%s must be absent", what).isNull();
      return;
    }
    List<String> got = actual == null ? List.of() : addresses(actual);
    assertThat(got).as(what).doesNotHaveDuplicates();
    assertThat(new HashSet<>(got)).as(what).isEqualTo(expected);
  }

  // ---------------------------------------------------------------------------------------------
  // Reasons: operators read these in explain, so the exact text is part of the contract.
  // ---------------------------------------------------------------------------------------------

  @Test
  void explainsThatThereAreNoEndpoints() {
    var selection = EndpointSelector.select(List.of(), clusterIpOnly(), NODE, "zone-a");

    assertThat(selection.reason()).isEqualTo("no endpoints");
    assertThat(selection.topology()).isEqualTo(NONE);
  }

  @Test
  void explainsPreferSameNodeWithTheNumberOfEndpointsNamingThisNode() {
    var selection =
        select(
            clusterIpOnly(),
            "node-a1",
            "zone-a",
            ep("10.0.0.1:80").zones("zone-a").nodes("node-a1").ready(),
            ep("10.0.0.2:80").zones("zone-a").nodes("node-a1", "node-a2").ready(),
            ep("10.0.0.3:80").zones("zone-b").nodes("node-b1").ready());

    assertThat(selection.topology()).isEqualTo(PREFER_SAME_NODE);
    assertThat(selection.reason())
        .isEqualTo("every ready endpoint has a node hint and 2 name node-a1");
  }

  @Test
  void explainsWhichEndpointLacksANodeHintBeforeChoosingTheZone() {
    var selection =
        select(
            clusterIpOnly(),
            "node-a1",
            "zone-a",
            ep("10.0.0.1:80").zones("zone-a").nodes("node-a1").ready(),
            ep("10.0.0.2:80").zones("zone-b").nodes("node-b1").ready(),
            ep("10.0.0.3:80").zones("zone-b").ready());

    assertThat(selection.topology()).isEqualTo(PREFER_SAME_ZONE);
    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: 10.0.0.3:80 has none; every ready endpoint has a zone hint and 1"
                + " names zone-a");
  }

  @Test
  void namesAtMostThreeEndpointsWithoutHintsInIpOrder() {
    var selection =
        select(
            clusterIpOnly(),
            NODE,
            "zone-a",
            ep("10.0.0.10:80").zones("zone-a").ready(),
            ep("10.0.0.9:80").zones("zone-a").ready(),
            ep("10.0.0.2:80").zones("zone-a").ready(),
            ep("10.0.0.1:80").zones("zone-a").nodes("node-1").ready(),
            ep("10.0.0.3:80").zones("zone-a").ready(),
            ep("10.0.0.4:80").zones("zone-a").ready());

    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: 10.0.0.2:80, 10.0.0.3:80, 10.0.0.4:80 and 2 more have none;"
                + " every ready endpoint has a zone hint and 6 name zone-a");
  }

  @Test
  void explainsTwoEndpointsWithoutZoneHintsAndTheFallbackToAllEndpoints() {
    var selection =
        select(
            clusterIpOnly(),
            NODE,
            "zone-a",
            ep("10.0.0.1:80").zones("zone-a").ready(),
            ep("10.0.0.2:80").ready(),
            ep("10.0.0.3:80").ready());

    assertThat(selection.topology()).isEqualTo(NONE);
    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: no ready endpoint has one; zone hints skipped: 10.0.0.2:80 and"
                + " 10.0.0.3:80 have none; using all 3 ready endpoints");
  }

  @Test
  void explainsAServiceWithoutHints() {
    var selection =
        select(
            clusterIpOnly(), NODE, "zone-a", ep("10.0.0.1:80").ready(), ep("10.0.0.2:80").ready());

    assertThat(selection.reason())
        .isEqualTo("no ready endpoint has topology hints; using all 2 ready endpoints");
  }

  @Test
  void explainsHintsForNeitherThisNodeNorAMissingZoneLabel() {
    var selection =
        select(
            clusterIpOnly(),
            NODE,
            null,
            ep("10.0.0.1:80").zones("zone-a").nodes("node-2").ready(),
            ep("10.0.0.2:80").zones("zone-b").nodes("node-3").ready());

    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: no ready endpoint names node-1; zone hints skipped: this node has"
                + " no topology.kubernetes.io/zone label; using all 2 ready endpoints");
  }

  @Test
  void explainsZoneHintsForOtherZonesOnly() {
    var selection =
        select(clusterIpOnly(), NODE, "zone-b", ep("10.1.2.3:80").zones("zone-a").ready());

    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: no ready endpoint has one; zone hints skipped: no ready endpoint"
                + " names zone-b; using the only ready endpoint");
  }

  @Test
  void explainsTheServingTerminatingFallbackThatIgnoresTopology() {
    var selection =
        select(
            clusterIpOnly(),
            NODE,
            "zone-a",
            ep("10.0.0.1:80").zones("zone-b").serving().terminating(),
            ep("10.0.0.2:80").zones("zone-a"));

    assertThat(selection.topology()).isEqualTo(NONE);
    assertThat(selection.reason())
        .isEqualTo("no ready endpoints; using 1 serving-terminating endpoint, topology ignored");
  }

  @Test
  void explainsThatNothingIsUsable() {
    var selection = select(clusterIpOnly(), NODE, "zone-a", ep("10.0.0.1:80").terminating());

    assertThat(selection.reason()).isEqualTo("no ready or serving-terminating endpoints");
  }

  @Test
  void explainsTheLocalListNextToTheClusterTopology() {
    var selection =
        select(
            policies(false, true, 30080),
            NODE,
            "zone-a",
            ep("10.0.0.1:80").zones("zone-a").ready().local(),
            ep("10.0.0.2:80").zones("zone-b").ready().local(),
            ep("10.0.0.3:80").zones("zone-a").ready());

    assertThat(selection.reason())
        .isEqualTo(
            "node hints skipped: no ready endpoint has one; every ready endpoint has a zone hint"
                + " and 2 name zone-a; Local list (no topology): 2 ready endpoints on this node");
  }

  @Test
  void explainsAnUnusedClusterListAndATerminatingLocalList() {
    var selection =
        select(
            policies(true, false, 0),
            NODE,
            "zone-a",
            ep("10.0.0.1:80").ready(),
            ep("10.0.0.2:80").serving().terminating().local());

    assertThat(selection.reason())
        .isEqualTo(
            "Cluster list not used (internalTrafficPolicy Local without external access); Local"
                + " list (no topology): 1 serving-terminating endpoint on this node, no ready one");
  }

  @Test
  void explainsAnAbsentLocalList() {
    var selection = select(policies(true, true, 30080), NODE, "zone-a", ep("10.0.0.1:80").ready());

    assertThat(selection.reason())
        .isEqualTo(
            "no ready endpoint has topology hints; using the only ready endpoint; Local list:"
                + " none, no ready or serving-terminating endpoint on this node");
  }

  // ---------------------------------------------------------------------------------------------
  // Determinism, order and the shape of the result.
  // ---------------------------------------------------------------------------------------------

  @Test
  void sortsEveryListByIpNumericallyThenByPort() {
    var selection =
        select(
            policies(false, true, 30080),
            NODE,
            "zone-a",
            ep("10.0.0.10:80").ready(),
            ep("10.0.0.9:8080").ready().local(),
            ep("10.0.0.9:80").ready().local(),
            ep("10.0.1.0:80").ready(),
            ep("9.255.0.1:80").ready());

    assertThat(addresses(selection.clusterEndpoints()))
        .containsExactly(
            "9.255.0.1:80", "10.0.0.9:80", "10.0.0.9:8080", "10.0.0.10:80", "10.0.1.0:80");
    assertThat(addresses(selection.localEndpoints()))
        .containsExactly("10.0.0.9:80", "10.0.0.9:8080");
    assertThat(addresses(selection.allReachableEndpoints()))
        .containsExactly(
            "9.255.0.1:80", "10.0.0.9:80", "10.0.0.9:8080", "10.0.0.10:80", "10.0.1.0:80");
  }

  @Test
  void sortsIpv6AddressesNumerically() {
    var selection =
        select(
            clusterIpOnly(),
            NODE,
            null,
            ep("[fd00::10]:80").ready(),
            ep("[fd00:0:0:1::1]:80").ready(),
            ep("[fd00::2]:80").ready(),
            ep("[::ffff:10.0.0.1]:80").ready(),
            ep("[fd00::a:2]:80").ready());

    assertThat(addresses(selection.clusterEndpoints()))
        .containsExactly(
            "[::ffff:10.0.0.1]:80",
            "[fd00::2]:80",
            "[fd00::10]:80",
            "[fd00::a:2]:80",
            "[fd00:0:0:1::1]:80");
  }

  @Test
  void givesTheSameSelectionForEveryInputOrder() {
    List<Endpoint> endpoints =
        endpointsOf(
            ep("10.0.0.1:80").zones("zone-a").ready().local(),
            ep("10.0.0.2:80").zones("zone-b").ready().local(),
            ep("10.0.0.3:80").zones("zone-a").ready(),
            ep("10.0.0.4:80").zones("zone-b").serving().terminating(),
            ep("10.0.0.5:80").zones("zone-a").ready(),
            ep("10.0.0.12:80").ready().terminating().serving().zones("zone-c"));
    var expected = EndpointSelector.select(endpoints, policies(false, true, 30080), NODE, "zone-a");

    var random = new Random(42);
    for (int i = 0; i < 20; i++) {
      var shuffled = new ArrayList<>(endpoints);
      Collections.shuffle(shuffled, random);
      assertThat(EndpointSelector.select(shuffled, policies(false, true, 30080), NODE, "zone-a"))
          .isEqualTo(expected);
    }
  }

  @Test
  void keepsOneEntryPerAddressWhenBothListsHoldAnEndpoint() {
    var selection =
        select(
            policies(false, true, 30080),
            NODE,
            "zone-a",
            ep("10.0.0.1:80").zones("zone-a").ready().local(),
            ep("10.0.0.2:80").zones("zone-b").ready().local());

    assertThat(addresses(selection.allReachableEndpoints()))
        .containsExactly("10.0.0.1:80", "10.0.0.2:80");
  }

  @Test
  void returnsImmutableListsAndNeverANullAllReachableList() {
    var selection = select(policies(true, false, 0), NODE, "zone-a", ep("10.0.0.1:80").ready());

    assertThat(selection.localEndpoints()).isNull();
    assertThat(selection.allReachableEndpoints()).isEmpty();
    assertThat(selection.hasAnyEndpoints()).isTrue();
    var withLists = select(clusterIpOnly(), NODE, "zone-a", ep("10.0.0.1:80").ready());
    assertThatThrownBy(() -> withLists.clusterEndpoints().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> withLists.allReachableEndpoints().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void treatsANullEndpointListAsNoEndpoints() {
    var selection = EndpointSelector.select(null, clusterIpOnly(), NODE, "zone-a");

    assertThat(selection.clusterEndpoints()).isNull();
    assertThat(selection.allReachableEndpoints()).isEmpty();
    assertThat(selection.hasAnyEndpoints()).isFalse();
  }

  @Test
  void doesNotModifyTheInputList() {
    List<Endpoint> endpoints =
        new ArrayList<>(
            endpointsOf(
                ep("10.0.0.3:80").zones("zone-a").ready(),
                ep("10.0.0.1:80").zones("zone-b").ready()));
    var before = List.copyOf(endpoints);

    EndpointSelector.select(endpoints, clusterIpOnly(), NODE, "zone-a");

    assertThat(endpoints).containsExactlyElementsOf(before);
  }

  @Test
  void printsTopologyLevelsAsKubernetesSpellsThem() {
    assertThat(PREFER_SAME_NODE.displayName()).isEqualTo("PreferSameNode");
    assertThat(PREFER_SAME_ZONE.displayName()).isEqualTo("PreferSameZone");
    assertThat(NONE.displayName()).isEqualTo("None");
    assertThat(PREFER_SAME_ZONE).hasToString("PreferSameZone");
  }

  // ---------------------------------------------------------------------------------------------
  // Fixtures.
  // ---------------------------------------------------------------------------------------------

  /** One row of the table; unset expectations are null ("list not used"). */
  static final class Case {
    final String name;
    String node = NODE;
    String zone;
    ServicePort service;
    List<Endpoint> endpoints = List.of();
    Set<String> cluster;
    Set<String> local;
    Set<String> all;
    boolean onlyRemote;
    TopologyLevel level;

    Case(String name) {
      this.name = name;
    }

    Case node(String value) {
      node = value;
      return this;
    }

    Case zone(String value) {
      zone = value;
      return this;
    }

    Case service(ServicePort value) {
      service = value;
      return this;
    }

    Case endpoints(Ep... values) {
      endpoints = endpointsOf(values);
      return this;
    }

    Case cluster(String... addresses) {
      cluster = Set.of(addresses);
      return this;
    }

    Case local(String... addresses) {
      local = Set.of(addresses);
      return this;
    }

    Case all(String... addresses) {
      all = Set.of(addresses);
      return this;
    }

    Case onlyRemote() {
      onlyRemote = true;
      return this;
    }

    Case level(TopologyLevel value) {
      level = value;
      return this;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static Case upstream(String name) {
    return new Case("upstream: " + name);
  }

  private static Case preferSameNode(String name) {
    return new Case("PreferSameNode: " + name);
  }

  private static Case path(String name) {
    return new Case("path: " + name);
  }

  /** Four ready endpoints, each with a zone hint and a node hint; 10.1.2.3 is for node-1. */
  private static Ep[] fullyHinted() {
    return new Ep[] {
      ep("10.1.2.3:80").zones("zone-a").nodes("node-1").ready(),
      ep("10.1.2.4:80").zones("zone-b").nodes("node-2").ready(),
      ep("10.1.2.5:80").zones("zone-c").nodes("node-3").ready(),
      ep("10.1.2.6:80").zones("zone-a").nodes("node-4").ready()
    };
  }

  /**
   * An endpoint under construction. Like upstream's Go literals every condition starts false, so a
   * ready endpoint need not be serving; {@code local()} puts it on {@link #NODE}.
   */
  static final class Ep {
    private final String ip;
    private final int port;
    private boolean ready;
    private boolean serving;
    private boolean terminating;
    private boolean local;
    private Set<String> zones = Set.of();
    private Set<String> nodes = Set.of();

    private Ep(String address) {
      int colon = address.lastIndexOf(':');
      String host = address.substring(0, colon);
      ip = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
      port = Integer.parseInt(address.substring(colon + 1));
    }

    Ep ready() {
      ready = true;
      return this;
    }

    Ep serving() {
      serving = true;
      return this;
    }

    Ep terminating() {
      terminating = true;
      return this;
    }

    Ep local() {
      local = true;
      return this;
    }

    Ep zones(String... names) {
      zones = Set.of(names);
      return this;
    }

    Ep nodes(String... names) {
      nodes = Set.of(names);
      return this;
    }

    Endpoint build() {
      return new Endpoint(
          ip,
          port,
          ready,
          serving,
          terminating,
          local ? NODE : "node-remote",
          local,
          zones,
          nodes,
          null);
    }
  }

  private static Ep ep(String address) {
    return new Ep(address);
  }

  private static List<Endpoint> endpointsOf(Ep... endpoints) {
    return Stream.of(endpoints).map(Ep::build).toList();
  }

  private static EndpointSelection select(
      ServicePort service, String node, String zone, Ep... endpoints) {
    return EndpointSelector.select(endpointsOf(endpoints), service, node, zone);
  }

  private static List<String> addresses(List<Endpoint> endpoints) {
    return endpoints.stream().map(Endpoint::address).collect(Collectors.toList());
  }

  private static ServicePort clusterIpOnly() {
    return policies(false, false, 0);
  }

  private static ServicePort policies(boolean internalLocal, boolean externalLocal, int nodePort) {
    return port(internalLocal, externalLocal, nodePort, List.of(), List.of());
  }

  private static ServicePort withLoadBalancerIp(boolean internalLocal, boolean externalLocal) {
    return port(internalLocal, externalLocal, 0, List.of(), List.of("192.0.2.10"));
  }

  private static ServicePort withExternalIp(boolean internalLocal, boolean externalLocal) {
    return port(internalLocal, externalLocal, 0, List.of("192.0.2.20"), List.of());
  }

  private static ServicePort port(
      boolean internalLocal,
      boolean externalLocal,
      int nodePort,
      List<String> externalIps,
      List<String> loadBalancerIps) {
    return new ServicePort(
        NAME,
        "10.96.0.1",
        80,
        nodePort,
        externalIps,
        loadBalancerIps,
        List.of(),
        false,
        null,
        internalLocal,
        externalLocal,
        0,
        null,
        null,
        false,
        null);
  }
}
