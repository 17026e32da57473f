#!/bin/sh
# Run in the last build stage of both images, just before its files are copied into an empty
# image: removes what only installs or configures packages (apt, dpkg's tools and file lists,
# debconf, and perl, which only they use), so that no layer below still carries it.
# /var/lib/dpkg/status stays, so image scanners still see which Debian packages (and versions) the
# image holds. Nothing the components run at runtime needs any of this (the container test,
# e2e ...ContainerIT, runs both images as the manifests do).
#
# First, what the base brings that no component runs, purged while dpkg is still here so the
# status file stays true: tzdata (4 MB; the JVM has its own time-zone data and the logs are in
# UTC) and the ext2/3/4 tools (2 MB; nothing here touches a file system). Then glibc's character
# set converters (8 MB under gconv/): only iconv(3) loads them, for charsets other than UTF-8 and
# ASCII, and neither the JVM (its own converters) nor nft, iptables or conntrack calls iconv.
set -eu
DEBIAN_FRONTEND=noninteractive dpkg --purge --force-remove-protected \
  tzdata e2fsprogs libext2fs2 logsave >/dev/null
rm -rf /usr/lib/x86_64-linux-gnu/gconv
rm -rf \
  /etc/apt /usr/bin/apt /usr/bin/apt-* /usr/lib/apt /usr/lib/x86_64-linux-gnu/libapt-* \
  /var/lib/apt /var/cache/apt /usr/share/bash-completion/completions/apt \
  /usr/bin/dpkg /usr/bin/dpkg-* /var/lib/dpkg/info /usr/share/dpkg \
  /usr/share/debconf /var/cache/debconf /usr/bin/debconf* \
  /usr/bin/perl /usr/bin/perl5* /usr/lib/x86_64-linux-gnu/perl-base /usr/share/perl5 \
  /var/log/* /tmp/* "$0"
