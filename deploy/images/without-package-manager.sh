#!/bin/sh
# Run in the last build stage of both images, just before its files are copied into an empty
# image: removes what only installs or configures packages (apt, dpkg's tools and file lists,
# debconf, and perl, which only they use), so that no layer below still carries it.
# /var/lib/dpkg/status stays, so image scanners still see which Debian packages (and versions) the
# image holds. Nothing the components run at runtime needs any of this (the container test,
# e2e ...ContainerIT, runs both images as the manifests do).
set -eu
rm -rf \
  /etc/apt /usr/bin/apt /usr/bin/apt-* /usr/lib/apt /usr/lib/x86_64-linux-gnu/libapt-* \
  /var/lib/apt /var/cache/apt /usr/share/bash-completion/completions/apt \
  /usr/bin/dpkg /usr/bin/dpkg-* /var/lib/dpkg/info /usr/share/dpkg \
  /usr/share/debconf /var/cache/debconf /usr/bin/debconf* \
  /usr/bin/perl /usr/bin/perl5* /usr/lib/x86_64-linux-gnu/perl-base /usr/share/perl5 \
  /var/log/* /tmp/* "$0"
