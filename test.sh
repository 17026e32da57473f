#!/usr/bin/env bash
# Runs every test of Proxima: unit tests, tests against the CRUD mock API server, the tests that
# load rules into scratch network namespaces, and the multi-process tests of the packaged jars.
#
# As root it first installs the OS tools those suites use (nft, iptables, conntrack, ip, socat for
# the end-to-end suite's server pods, kubectl for rendering the manifests, and podman, runc,
# debootstrap and openssl for the container suite, which builds the images and runs them as the
# manifests say); as non-root it
# runs everything that does not need them, and the suites that do are reported as skipped with
# the tool they miss. With CI=true formatting is checked instead of applied, so unformatted code
# fails.
set -euo pipefail
cd "$(dirname "$0")"

declare -A package_of=(
  [nft]=nftables
  [iptables]=iptables
  [ip6tables]=iptables
  [conntrack]=conntrack
  [ip]=iproute2
  [kubectl]=kubernetes-client
  [socat]=socat
  [podman]=podman
  [runc]=runc
  [debootstrap]=debootstrap
  [openssl]=openssl
  [promtool]=prometheus
)
missing=()
packages=()
for tool in "${!package_of[@]}"; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    missing+=("$tool")
    packages+=("${package_of[$tool]}")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing OS tools (missing: ${missing[*]})" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # Only what is missing: an image may already carry another package providing the same tool.
    apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${packages[@]}" | sort -u) >&2
  else
    echo "test.sh: not root, so not installing: ${missing[*]}." >&2
    echo "test.sh: suites that need them are skipped and say so; run as root to include them." >&2
  fi
fi

maven_args=(-B verify)
if [ "${CI:-}" = "true" ]; then
  maven_args+=(-Dspotless.goal=check)
fi
./mvnw "${maven_args[@]}"
