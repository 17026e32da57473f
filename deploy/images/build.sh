#!/usr/bin/env bash
# Builds the two images, proxima/controller and proxima/proxy, with docker or podman, and pushes
# them to your registry when you name one.
#
#   deploy/images/build.sh                 # builds the jars (./mvnw), then both images, locally
#   deploy/images/build.sh registry.example.com/platform
#                                          # the same, named registry.example.com/platform/proxima/controller:TAG
#                                          # and .../proxima/proxy:TAG, then pushed there
#   deploy/images/build.sh --print-images [REGISTRY]   # print the two image names and tag, build nothing
#   deploy/images/build.sh --archive=DIR   # the same, then both images saved as image archives
#                                          # DIR/proxima-controller-TAG.tar and DIR/proxima-proxy-TAG.tar
#                                          # (docker-archive format, for nodes without a registry:
#                                          # `kind load image-archive`, `ctr -n k8s.io images import`,
#                                          # `docker load`, `podman load`)
#   TAG=dev deploy/images/build.sh         # another tag (default: the project version in pom.xml
#                                          # without -SNAPSHOT, the tag the manifests name)
#   PREFIX=registry.example.com/proxima/ deploy/images/build.sh   # image names become PREFIXcontroller, PREFIXproxy
#   PUSH_FLAGS=--tls-verify=false deploy/images/build.sh localhost:5000   # flags for `push` (a plain-HTTP registry with podman)
#   SKIP_JARS=1 deploy/images/build.sh     # use the jars already in */target
#   CONTAINER_ENGINE=podman deploy/images/build.sh
#   BASE_IMAGE=registry.example.com/debian:bookworm-slim deploy/images/build.sh   # another base
#   LOCAL_BASE=1 deploy/images/build.sh    # build the Debian base here even if a registry answers
#
# The base. The Dockerfiles start FROM the build argument BASE_IMAGE, by default the public
# debian:bookworm-slim pinned by digest. When BASE_IMAGE is not given and that image can be neither
# found locally nor pulled (a machine without a registry, like this project's CI), the script makes
# the same Debian release itself: `debootstrap --variant=minbase`, slimmed the way the slim image
# is (no docs, man pages, locales or apt lists), imported as localhost/proxima/debian:<release>-slim.
# That needs root and debootstrap, and about a minute once; the root filesystem is kept as a tar
# under $PROXIMA_IMAGE_CACHE (default ~/.cache/proxima/images), keyed by release, and re-imported
# from there when the engine has lost the image. Delete the tar for a fresher Debian.
#
# Podman here needs `build --isolation chroot --network host` (the default OCI runtime cannot
# start build containers in this sandbox); PODMAN_BUILD_FLAGS overrides that.
#
# An archive names each image as the manifests' short name resolves on a node: proxima/proxy:TAG
# is docker.io/proxima/proxy:TAG to containerd and Docker, so the archive carries that name
# (podman would otherwise save its own localhost/proxima/proxy:TAG, which no manifest names).
# With a REGISTRY as well, the archives carry the registry's names instead, and nothing is pushed.
#
# Exits 3 without a usable container engine, 4 when a push fails, 5 when saving an archive fails.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' "$repo/pom.xml" | head -n 1)"
# The manifests name the release tag (deploy/base/kustomization.yaml); a development build gets the
# same, so that what build.sh makes is what the manifests run (e2e ImageTagsTest checks it).
tag="${TAG:-${version%-SNAPSHOT}}"
print_only=0
archive_dir=""
case "${1:-}" in
  --print-images)
    print_only=1
    shift
    ;;
  --archive=?*)
    archive_dir="${1#--archive=}"
    # Relative to where build.sh was called from; it builds from the repository root.
    case "$archive_dir" in
      /*) ;;
      *) archive_dir="$PWD/$archive_dir" ;;
    esac
    shift
    ;;
  --archive*)
    echo "build.sh: --archive=DIR needs a directory." >&2
    exit 2
    ;;
esac
registry="${1:-}"
registry="${registry%/}"
if [ -n "$registry" ]; then
  prefix="${PREFIX:-$registry/proxima/}"
else
  prefix="${PREFIX:-proxima/}"
fi
if [ "$print_only" = "1" ]; then
  echo "${prefix}controller:${tag}"
  echo "${prefix}proxy:${tag}"
  exit 0
fi
release="${DEBIAN_RELEASE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
cache="${PROXIMA_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proxima/images}"
# Must match the ARG BASE_IMAGE default in both Dockerfiles (e2e DockerfilesTest checks it).
public_base="docker.io/library/debian:bookworm-slim@sha256:abd67ffcfa541b485a3dff59865ab629aa048a6c613e639d36e7456b0b229241"
local_base="localhost/proxima/debian:${release}-slim"

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

build_flags=()
if "$engine" --version 2>/dev/null | grep -qi podman; then
  read -r -a build_flags <<<"${PODMAN_BUILD_FLAGS---isolation chroot --network host}"
fi

# The Debian root filesystem, as the slim image has it, in a tar under the cache directory.
make_rootfs_tar() {
  local tar_file="$1"
  if [ "$(id -u)" != "0" ]; then
    echo "build.sh: building the Debian base needs root (debootstrap); or set BASE_IMAGE." >&2
    exit 1
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "build.sh: building the Debian base needs debootstrap (apt-get install debootstrap); or set BASE_IMAGE." >&2
    exit 1
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/proxima-base.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "build.sh: debootstrap --variant=minbase $release from $mirror (about a minute)" >&2
  debootstrap --variant=minbase "$release" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    exit 1
  }
  local root="$work/rootfs"
  # What the slim image leaves out, now and for every package installed later.
  cat >"$root/etc/dpkg/dpkg.cfg.d/proxima-slim" <<'EOF'
# As in debian:*-slim: no documentation, manuals or translations (copyright files stay).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
  cat >"$root/etc/apt/apt.conf.d/proxima-slim" <<'EOF'
# Images keep no package caches.
APT::Install-Recommends "false";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
    "$root"/usr/share/groff/* "$root"/usr/share/lintian/* \
    "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/log/* "$root"/var/cache/debconf/*-old \
    "$root"/var/lib/dpkg/*-old "$root"/etc/machine-id "$root"/etc/hostname "$root"/etc/resolv.conf
  # The suites the public image has: the release, its updates and its security updates.
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $release $release-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: $release-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  mkdir -p "$(dirname "$tar_file")"
  tar --numeric-owner -C "$root" -cf "$tar_file.partial" .
  mv "$tar_file.partial" "$tar_file"
  rm -rf "$work"
}

# Prints the base image to build on.
choose_base() {
  if [ -n "${BASE_IMAGE:-}" ]; then
    echo "$BASE_IMAGE"
    return
  fi
  if [ "${LOCAL_BASE:-}" != "1" ]; then
    if "$engine" image inspect "$public_base" >/dev/null 2>&1 \
      || timeout 120 "$engine" pull -q "$public_base" >/dev/null 2>&1; then
      echo "$public_base"
      return
    fi
    echo "build.sh: cannot pull $public_base; building the same Debian base here." >&2
  fi
  if ! "$engine" image inspect "$local_base" >/dev/null 2>&1; then
    local tar_file="$cache/debian-$release-slim-rootfs.tar"
    if [ ! -s "$tar_file" ]; then
      make_rootfs_tar "$tar_file"
    fi
    echo "build.sh: importing $local_base from $tar_file" >&2
    "$engine" import --change 'CMD ["bash"]' "$tar_file" "$local_base" >/dev/null
  fi
  echo "$local_base"
}

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

base="$(choose_base)"
revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
if [ "$revision" != "unknown" ] && [ -n "$(git -C "$repo" status --porcelain 2>/dev/null)" ]; then
  revision="$revision-dirty"
fi
source_url="$(git -C "$repo" config --get remote.origin.url 2>/dev/null || echo unknown)"

for component in controller proxy; do
  image="${prefix}${component}:${tag}"
  echo "build.sh: building $image on $base with $engine" >&2
  "$engine" build "${build_flags[@]}" \
    --build-arg "BASE_IMAGE=$base" \
    --build-arg "VERSION=$version" \
    --build-arg "REVISION=$revision" \
    --build-arg "SOURCE=$source_url" \
    -f "deploy/images/${component}/Dockerfile" -t "$image" .
done
echo "build.sh: built ${prefix}controller:${tag} and ${prefix}proxy:${tag}" >&2

# The name a node's runtime gives an image reference without a registry (docker.io/...).
qualified() {
  case "${1%%/*}" in
    *.* | *:* | localhost) echo "$1" ;;
    *) echo "docker.io/$1" ;;
  esac
}

if [ -n "$archive_dir" ]; then
  mkdir -p "$archive_dir"
  for component in controller proxy; do
    image="${prefix}${component}:${tag}"
    name="$(qualified "$image")"
    file="$archive_dir/proxima-${component}-${tag}.tar"
    "$engine" tag "$image" "$name"
    rm -f "$file"
    save_flags=()
    if "$engine" --version 2>/dev/null | grep -qi podman; then
      save_flags=(--format docker-archive)
    fi
    if ! "$engine" save "${save_flags[@]}" -o "$file" "$name"; then
      echo "build.sh: saving $name to $file failed." >&2
      exit 5
    fi
    echo "build.sh: saved $name to $file" >&2
  done
  done_what="saved to $archive_dir. Load them on every node (kind load image-archive FILE,"
  done_what="$done_what ctr -n k8s.io images import FILE, docker load -i FILE), then point your overlay at them"
elif [ -n "$registry" ]; then
  read -r -a push_flags <<<"${PUSH_FLAGS:-}"
  for component in controller proxy; do
    image="${prefix}${component}:${tag}"
    echo "build.sh: pushing $image with $engine" >&2
    if ! "$engine" push "${push_flags[@]}" "$image"; then
      echo "build.sh: pushing $image failed; log in to $registry ($engine login), or set PUSH_FLAGS (e.g. --tls-verify=false for a plain-HTTP registry with podman)." >&2
      exit 4
    fi
  done
  done_what="pushed. Point your overlay at them"
fi
if [ -n "$archive_dir" ] || [ -n "$registry" ]; then
  cat >&2 <<EOF
build.sh: ${done_what} (its kustomization.yaml):
images:
  - name: proxima/controller
    newName: ${prefix}controller
    newTag: ${tag}
  - name: proxima/proxy
    newName: ${prefix}proxy
    newTag: ${tag}
EOF
fi
