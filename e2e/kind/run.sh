#!/usr/bin/env bash
# Proxima on a real cluster: builds both images, creates the kind cluster in cluster.yaml (three
# zones, no kube-proxy), loads the images, installs deploy/overlays/replace-kube-proxy (through
# overlay/, which fills in this cluster's settings), deploys test servers and clients
# (workloads.yaml) and checks, by curling from client pods:
#   1. PreferSameNode: every request from a worker's client reaches the server on that worker;
#   2. PreferSameZone: every request stays in the client's zone, including from a worker without
#      a server of its own;
#   3. the control: without a preference, requests from one client reach several zones.
#
# Needs Docker (a running daemon), kind and kubectl. NOT run by this project's CI, which has no
# Docker and no kind; e2e/kind/README.md says what has and has not been verified. Exit status: 0 all checks passed; 1 a check failed; 2 a tool is missing.
#
#   e2e/kind/run.sh                     # creates the cluster, checks, deletes the cluster
#   KEEP_CLUSTER=1 e2e/kind/run.sh      # leaves it running (kind delete cluster --name proxima)
#   SKIP_BUILD=1 e2e/kind/run.sh        # use proxima/*:0.1.0 images already in Docker
#   KIND_NODE_IMAGE=kindest/node:v1.34.0 e2e/kind/run.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cluster=proxima                       # fixed: cluster.yaml, workloads.yaml and overlay/ use it
context="kind-$cluster"
node_image="${KIND_NODE_IMAGE:-kindest/node:v1.33.1}"
images=(proxima/controller:0.1.0 proxima/proxy:0.1.0)
requests="${REQUESTS:-20}"

say() { echo "kind-e2e: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
k() { kubectl --context "$context" "$@"; }

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null 2>&1 || { say "$tool is not installed; this recipe needs Docker, kind and kubectl."; exit 2; }
done
docker info >/dev/null 2>&1 || { say "'docker info' fails: the Docker daemon is not running or not reachable."; exit 2; }

if [ "${SKIP_BUILD:-}" != "1" ]; then
  say "building the images"
  # No registry: build.sh's local names and tag are the ones the manifests name, and kind loads
  # them into its nodes below.
  CONTAINER_ENGINE=docker "$repo/deploy/images/build.sh"
fi

created=0
if kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  say "reusing the existing kind cluster '$cluster'"
else
  say "creating kind cluster '$cluster' ($node_image)"
  kind create cluster --config "$here/cluster.yaml" --image "$node_image" --wait 0s
  created=1
fi
cleanup() {
  if [ "$created" = "1" ] && [ "${KEEP_CLUSTER:-}" != "1" ]; then
    say "deleting kind cluster '$cluster' (KEEP_CLUSTER=1 keeps it)"
    kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

say "loading ${images[*]}"
kind load docker-image "${images[@]}" --name "$cluster"

say "installing Proxima (deploy/overlays/replace-kube-proxy via e2e/kind/overlay)"
k apply -k "$here/overlay"
k -n proxima-system rollout status daemonset/proxima-proxy --timeout=5m
k -n proxima-system rollout status deployment/proxima-controller --timeout=5m
# A ready proxy is not yet a synced one: its probes pass before it ever reaches the API server.
# Every node's proxy must have loaded a ruleset (kube-proxy's last-sync metric is set).
for node in $(kind get nodes --name "$cluster"); do
  synced=""
  for _ in $(seq 1 60); do
    synced="$(docker exec "$node" curl -sf http://127.0.0.1:10249/metrics 2>/dev/null \
      | awk '/^kubeproxy_sync_proxy_rules_last_timestamp_seconds\{ip_family="IPv4"\}/ && $2 > 0 { print "yes" }' || true)"
    [ -n "$synced" ] && break
    sleep 2
  done
  [ -n "$synced" ] || fail "the proxy on $node has not synced in 2 minutes; see its log (kubectl --context $context -n proxima-system get pods -o wide, then logs POD)"
  say "proxy on $node synced"
done
# CoreDNS reaches the API server through the `kubernetes` ClusterIP: only Proxima serves it here.
k -n kube-system rollout status deployment/coredns --timeout=5m

say "deploying test servers and clients"
k apply -f "$here/workloads.yaml"
k -n proxima-e2e rollout status daemonset/same-node-server --timeout=5m
k -n proxima-e2e wait --for=condition=Ready pod --all --timeout=5m

# Each endpoint's hints, once written: "<address> zones=<z> nodes=<n>" per line.
hints() {
  k -n proxima-e2e get endpointslices -l "kubernetes.io/service-name=$1" -o jsonpath='{range .items[*].endpoints[*]}{.addresses[0]} zones={.hints.forZones[*].name} nodes={.hints.forNodes[*].name}{"\n"}{end}'
}
wait_for_hints() { # service, expected endpoint count, hint kind (zones|nodes)
  local service=$1 count=$2 kind=$3
  for _ in $(seq 1 60); do
    local lines
    lines="$(hints "$service")"
    if [ "$(grep -c . <<<"$lines")" = "$count" ] && ! grep -Eq "$kind=( |\$)" <<<"$lines"; then
      say "hints on $service:"; sed 's/^/    /' <<<"$lines" >&2
      return 0
    fi
    sleep 2
  done
  say "hints on $service now:"; hints "$service" >&2
  fail "$service: $count endpoints with $kind hints did not appear within 2 minutes"
}
wait_for_hints same-node 4 nodes
wait_for_hints same-zone 3 zones

# Looked up once: "<pod> <node>" and "<node> <zone>" per line (no bash 4 maps, for macOS's bash).
pod_nodes="$(k -n proxima-e2e get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}')"
node_zones="$(k get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.topology\.kubernetes\.io/zone}{"\n"}{end}')"
node_of_pod() { awk -v key="$1" '$1 == key { print $2 }' <<<"$pod_nodes"; }
zone_of_node() { awk -v key="$1" '$1 == key { print $2 }' <<<"$node_zones"; }
cluster_ip() { k -n proxima-e2e get service "$1" -o jsonpath='{.spec.clusterIP}'; }

# Prints the pod name that answered each of $requests requests from client pod $1 to Service $2.
answers() {
  local ip
  ip="$(cluster_ip "$2")"
  k -n proxima-e2e exec "$1" -- sh -c \
    "for i in \$(seq 1 $requests); do curl -sS --max-time 3 http://$ip/hostname || echo FAILED; echo; done"
}

# Retries for up to a minute: a proxy programs a Service within a sync or two of its hints.
check() { # description, client, service, predicate over one answering pod
  local description=$1 client=$2 service=$3 predicate=$4 out bad
  for attempt in $(seq 1 12); do
    out="$(answers "$client" "$service" | grep -v '^$' || true)"
    bad=""
    while read -r pod; do
      [ -n "$pod" ] || continue
      "$predicate" "$client" "$pod" || bad="$bad $pod"
    done <<<"$out"
    if [ -z "$bad" ] && [ "$(grep -c . <<<"$out")" = "$requests" ]; then
      say "ok: $description ($client -> $(sort -u <<<"$out" | tr '\n' ' '))"
      return 0
    fi
    sleep 5
  done
  fail "$description: $client reached:$bad (all answers: $(sort <<<"$out" | uniq -c | tr '\n' ' '))"
}

same_node() { # client pod, answering pod
  [ "$2" != FAILED ] && [ "$(node_of_pod "$2")" = "$(node_of_pod "$1")" ]
}
same_zone() {
  [ "$2" != FAILED ] && [ "$(zone_of_node "$(node_of_pod "$2")")" = "$(zone_of_node "$(node_of_pod "$1")")" ]
}

for client in client-worker client-worker2 client-worker3 client-worker4; do
  check "PreferSameNode routes to the same node's server" "$client" same-node same_node
done
for client in client-worker client-worker2 client-worker3 client-worker4; do
  check "PreferSameZone stays in zone" "$client" same-zone same_zone
done

# The control: 20 requests over three zones all landing in one zone is a 1-in-3^19 chance.
zones="$(answers client-worker2 anywhere | grep -v '^$' | grep -v FAILED | while read -r pod; do zone_of_node "$(node_of_pod "$pod")"; echo; done | grep . | sort -u)"
if [ "$(grep -c . <<<"$zones")" -lt 2 ]; then
  fail "control: without trafficDistribution client-worker2 reached only zone(s) $zones; the checks above prove nothing"
fi
say "ok: without a preference, requests spread over zones: $(tr '\n' ' ' <<<"$zones")"
say "PASS"
