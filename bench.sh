#!/usr/bin/env bash
# Builds the jars and runs every Proxima benchmark on this machine, printing one Markdown table
# (benchmark, scale, result, baseline from the same run, ratio, target, pass/fail).
#
#   ./bench.sh            the full sizes (10,000 Services ...); docs/performance.md says how long
#   ./bench.sh --smoke    small sizes; .ci/run calls it so the harness cannot rot
#   ./bench.sh --iptables also the rows of the proxy's iptables mode
#   ./bench.sh --only=jmh,proxy,footprint,latency,counting,controller,extreme,soak,hostile
#                         (hostile: the worst shapes one tenant's Service can take, rendered offline)
#   ./bench.sh --extreme[=44000x1]   the 44,000 × 1 and 5,000 × 50 shapes alone (or one)
#   ./bench.sh --soak[=minutes]      the soak alone (30 minutes unless given)
#   ./bench.sh --cold[=starts]       time to program a new node alone, with where the time goes (5 starts)
#   ./bench.sh --charts              redraw docs/images/perf-*.svg from bench/results/ without measuring
#
# Kernel and process benchmarks need root, nft, iptables and iproute2. The harness runs inside its
# own network namespace (pb8-hub) and creates every other namespace and veth it needs under the
# pb8 prefix, so nothing in the root namespace is touched; all of them are deleted afterwards,
# also when a run fails. BENCH_NETNS_PREFIX=<p> uses <p> instead of pb8, so two runs (a soak and
# anything else) can share the machine without deleting each other's namespaces. Targets are
# printed, not enforced: the exit code is non-zero only when the harness itself broke. Without
# root only the JMH rows run; the rest say SKIPPED.
set -euo pipefail
cd "$(dirname "$0")"

if [ "${BENCH_SKIP_BUILD:-}" != "1" ]; then
  # BENCH_MAVEN_FLAGS=-o builds offline on a machine that already has every dependency.
  ./mvnw -B -q ${BENCH_MAVEN_FLAGS:-} package -DskipTests -pl bench -am >&2
fi

if [ "${1:-}" = "--charts" ]; then
  # Redraw docs/images/perf-*.svg from bench/results/*.tsv without measuring anything.
  exec java -cp bench/target/proxima-bench.jar dev.proxima.bench.PerformanceCharts .
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
