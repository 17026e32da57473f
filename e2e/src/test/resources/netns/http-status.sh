#!/bin/bash
# http-status.sh HOST PORT PATH: the status code of a plain HTTP GET, or 000 when nothing answers.
line=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "GET %s HTTP/1.0\r\nHost: e2e\r\n\r\n" "$2" >&3 && head -n1 <&3' "$1" "$2" "$3" 2>/dev/null)
code=$(echo "$line" | cut -d' ' -f2)
echo "${code:-000}"
