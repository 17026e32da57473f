#!/usr/bin/env bash
# Runs every test of Proxima: unit tests, tests against the CRUD mock API server, and the
# multi-process tests of the packaged jars.
#
# As root it first installs the OS tools that the data-plane suites use (nftables, iptables,
# conntrack, iproute2); as non-root it runs everything that does not need them and names what it
# skipped. With CI=true formatting is checked instead of applied, so unformatted code fails.
set -euo pipefail
cd "$(dirname "$0")"

tools=(nft iptables ip6tables conntrack ip)
missing=()
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing OS tools (missing: ${missing[*]})" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends nftables iptables conntrack iproute2 >&2
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
