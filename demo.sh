#!/usr/bin/env bash
# Runs Proxima on its embedded default: builds both components, starts an in-process API server
# seeded with an example cluster (3 zones, 6 nodes), runs the real controller against it and prints
# the hints it wrote, then runs one real proxy per node in dry-run, printing which endpoints each
# node uses and why and writing each node's ruleset to proxima-demo-out/<node>.nft. Exits by itself.
set -euo pipefail
cd "$(dirname "$0")"

echo "Building Proxima (the first build downloads dependencies)..." >&2
./mvnw -B -q -pl e2e -am package -DskipTests
exec java -jar e2e/target/proxima-demo.jar "$@"
