#!/bin/bash
# probe.sh tcp|udp HOST PORT COUNT [stamped]
# COUNT fresh connections (or UDP sockets), one output line each: "<server> <address it saw>",
# REFUSED, UNREACHABLE, TIMEOUT or "ERROR <text>"; "stamped" puts each attempt's start time (epoch
# seconds) first. Bash's /dev/tcp and /dev/udp keep the client free of extra tools; dd reads a
# whole datagram where bash's read would take one byte of it.
proto=$1 host=$2 port=$3 count=$4 stamped=$5
for ((i = 0; i < count; i++)); do
  [ "$stamped" = stamped ] && printf '%s ' "$EPOCHREALTIME"
  if [ "$proto" = tcp ]; then
    out=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1" && echo hi >&3 && head -n1 <&3' "$host" "$port" 2>&1)
  else
    out=$(timeout 1 bash -c 'exec 3<>"/dev/udp/$0/$1" && echo hi >&3 && dd bs=512 count=1 status=none <&3' "$host" "$port" 2>&1)
  fi
  rc=$?
  case "$out" in
    *"Connection refused"*) echo REFUSED ;;
    *"No route to host"* | *"unreachable"*) echo UNREACHABLE ;;
    "") if [ $rc -eq 124 ]; then echo TIMEOUT; else echo "ERROR exit $rc"; fi ;;
    *) echo "${out##*$'\n'}" | tr -d '[]' ;;
  esac
done
