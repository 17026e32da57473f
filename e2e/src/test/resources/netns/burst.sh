#!/bin/bash
# burst.sh HOST PORT COUNT
# COUNT fresh TCP connections, one output line each: "<server> <address it saw>", TIMEOUT when no
# answer comes within 2 seconds, or ERROR when the connect fails. Unlike probe.sh it starts no
# process per connection (bash opens, writes and reads the socket itself), so thousands of
# connections take seconds; the price is no time limit on the connect itself, so use it only where
# every connection is expected to be answered, under the caller's own time limit.
host=$1 port=$2 count=$3
for ((i = 0; i < count; i++)); do
  if exec 3<>"/dev/tcp/$host/$port"; then
    echo hi >&3
    if read -r -t 2 line <&3; then echo "${line//[\[\]]/}"; else echo TIMEOUT; fi
    exec 3>&-
  else
    echo "ERROR connect failed"
  fi
done 2>/dev/null
