#!/usr/bin/env bash
# Builds the jars and runs every Proxima benchmark on this machine, printing one Markdown table
# (benchmark, scale, result, baseline from the same run, ratio, target, pass/fail).
#
#   ./bench.sh            the issues' sizes (10,000 Services ...), about 20 minutes on 2 cores,
#                         plus about 10 for issue 18's extreme shapes and 30 for its soak
#   ./bench.sh --smoke    small sizes, 4 to 6 minutes; .ci/run calls it so the harness cannot rot
#   ./bench.sh --iptables also the rows of the proxy's iptables mode (target 5)
#   ./bench.sh --only=jmh,proxy,footprint,latency,counting,controller,extreme,restart-probe,soak
#                         (restart-probe: what a restart without planning would cost, 2 minutes)
#   ./bench.sh --extreme[=44000x1]   issue 18's extreme shapes alone (or one of them)
#   ./bench.sh --soak[=minutes]      issue 18's soak alone (30 minutes unless given)
#   ./bench.sh --cold[=starts]       target 1 cold start alone, with where the time goes (5 starts)
#
# Kernel and process benchmarks need root, nft, iptables and iproute2. The harness runs inside its
# own network namespace (pb8-hub) and creates every other namespace and veth it needs under the
# pb8 prefix, so nothing in the root namespace is touched; all of them are deleted afterwards,
# also when a run fails. BENCH_NETNS_PREFIX=<p> uses <p> instead of pb8, so two runs (a soak and
# anything else) can share the machine without deleting each other's namespaces. Targets are
# printed, not enforced: the exit code is non-zero only when the harness itself broke. Without
# root only the JMH rows and the restart probe run; the rest say SKIPPED.
set -euo pipefail
cd "$(dirname "$0")"

if [ "${BENCH_SKIP_BUILD:-}" != "1" ]; then
  # BENCH_MAVEN_FLAGS=-o builds offline on a machine that already has every dependency.
  ./mvnw -B -q ${BENCH_MAVEN_FLAGS:-} package -DskipTests -pl bench -am >&2
fi

java_cmd=(java -jar bench/target/proxima-bench.jar --root=. "$@")
if [ "$(id -u)" != "0" ] || ! command -v ip >/dev/null 2>&1; then
  exec "${java_cmd[@]}"
fi

prefix=${BENCH_NETNS_PREFIX:-pb8}
export BENCH_NETNS_PREFIX=$prefix
hub=$prefix-hub
cleanup() {
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix-" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
}
trap cleanup EXIT
cleanup
ip netns add "$hub"
ip netns exec "$hub" ip link set lo up
ip netns exec "$hub" "${java_cmd[@]}"
