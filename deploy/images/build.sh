#!/usr/bin/env bash
# Builds the two images, proxima/controller and proxima/proxy, with docker or podman.
#
#   deploy/images/build.sh                 # builds the jars (./mvnw), then both images
#   TAG=dev deploy/images/build.sh         # another tag (then set it with kustomize `images:`)
#   PREFIX=registry.example.com/proxima/ deploy/images/build.sh   # image names become PREFIXcontroller, PREFIXproxy
#   SKIP_JARS=1 deploy/images/build.sh     # use the jars already in */target
#   CONTAINER_ENGINE=podman deploy/images/build.sh
#
# Needs a working container engine. This project's build and CI machines have none: there the
# script says so and exits with status 3, and CI renders and checks the manifests instead
# (e2e/src/test/java/dev/proxima/e2e/deploy/ManifestsTest.java).
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
tag="${TAG:-0.1.0}"
prefix="${PREFIX:-proxima/}"

usable() {
  command -v "$1" >/dev/null 2>&1 && "$1" info >/dev/null 2>&1
}

engine="${CONTAINER_ENGINE:-}"
if [ -n "$engine" ]; then
  if ! usable "$engine"; then
    echo "build.sh: CONTAINER_ENGINE=$engine is not usable ('$engine info' fails)." >&2
    exit 3
  fi
else
  for candidate in docker podman; do
    if usable "$candidate"; then
      engine="$candidate"
      break
    fi
  done
fi
if [ -z "$engine" ]; then
  {
    echo "build.sh: no container engine available, so no images were built."
    for candidate in docker podman; do
      if command -v "$candidate" >/dev/null 2>&1; then
        echo "build.sh: '$candidate' is installed but '$candidate info' fails (is its daemon or socket running?)."
      fi
    done
    echo "build.sh: install and start Docker or Podman (or set CONTAINER_ENGINE) and run this again."
    echo "build.sh: the jars alone: ./mvnw -B package -DskipTests (controller/target/proxima-controller.jar, proxy/target/proxima-proxy.jar)."
  } >&2
  exit 3
fi

cd "$repo"
if [ "${SKIP_JARS:-}" != "1" ]; then
  ./mvnw -B -q package -DskipTests
fi
for jar in controller/target/proxima-controller.jar proxy/target/proxima-proxy.jar; do
  if [ ! -f "$jar" ]; then
    echo "build.sh: $jar is missing; run ./mvnw -B package -DskipTests first." >&2
    exit 1
  fi
done

for component in controller proxy; do
  image="${prefix}${component}:${tag}"
  echo "build.sh: building $image with $engine" >&2
  "$engine" build -f "deploy/images/${component}/Dockerfile" -t "$image" .
done
echo "build.sh: built ${prefix}controller:${tag} and ${prefix}proxy:${tag}" >&2
