#!/usr/bin/env bash
# Runs Proxima on its embedded default: builds the controller, starts an in-process API server
# seeded with an example cluster (3 zones, 6 nodes), runs the real controller against it and
# prints the hints it wrote. Exits by itself.
set -euo pipefail
cd "$(dirname "$0")"

echo "Building the controller (the first build downloads dependencies)..." >&2
./mvnw -B -q -pl controller -am package -DskipTests
exec java -jar controller/target/proxima-controller.jar demo "$@"
