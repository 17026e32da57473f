#!/usr/bin/env bash
# Runs Proxima on its embedded default: builds both components, starts an in-process API server
# seeded with an example cluster (3 zones, 6 nodes), runs the real controller against it and prints
# the hints it wrote, then runs one real proxy per node in dry-run, printing which endpoints each
# node uses and why and writing each node's ruleset to proxima-demo-out/<node>.nft. Exits by itself.
#
# ./demo.sh --serve keeps it all running until Ctrl-C and writes proxima-demo-out/kubeconfig, so
# kubectl can explore and change the example cluster (docs/demo.md).
#
# DEMO_SKIP_BUILD=1 skips the build and runs the jar already in e2e/target (the e2e module's
# integration tests run this script that way, inside the build that has just packaged the jar).
set -euo pipefail
cd "$(dirname "$0")"

jar=e2e/target/proxima-demo.jar
if [ "${DEMO_SKIP_BUILD:-}" = "1" ]; then
  if [ ! -f "$jar" ]; then
    echo "demo.sh: DEMO_SKIP_BUILD=1 but $jar does not exist; build it or unset DEMO_SKIP_BUILD" >&2
    exit 1
  fi
else
  echo "Building Proxima (the first build downloads dependencies)..." >&2
  ./mvnw -B -q -pl e2e -am package -DskipTests
fi
exec java -jar "$jar" "$@"
