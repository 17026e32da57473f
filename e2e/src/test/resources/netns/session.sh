#!/bin/bash
# session.sh tcp|udp HOST PORT
# One long-lived TCP connection (or one UDP socket, so one conntrack flow): every line read from
# stdin sends a request on it and prints one line, as probe.sh does.
proto=$1
exec 3<>"/dev/$1/$2/$3" || { echo "ERROR connect"; exit 1; }
while read -r _; do
  echo hi >&3 2>/dev/null || { echo "ERROR send"; continue; }
  if [ "$proto" = tcp ]; then
    out=$(timeout 2 head -n1 <&3 2>&1)
  else
    out=$(timeout 1 dd bs=512 count=1 status=none <&3 2>&1)
  fi
  rc=$?
  case "$out" in
    *"Connection refused"*) echo REFUSED ;;
    "") if [ $rc -eq 124 ]; then echo TIMEOUT; else echo "ERROR exit $rc"; fi ;;
    *) echo "${out##*$'\n'}" | tr -d '[]' ;;
  esac
done
