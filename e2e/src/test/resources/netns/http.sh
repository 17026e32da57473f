#!/bin/bash
# http.sh HOST PORT PATH [body]
# A plain HTTP/1.0 GET: prints the status code (000 when nothing answers), or with "body" the body.
response=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1" && printf "GET %s HTTP/1.0\r\nHost: e2e\r\n\r\n" "$2" >&3 && cat <&3' "$1" "$2" "$3" 2>/dev/null | tr -d '\r')
if [ "$4" = body ]; then
  printf '%s\n' "${response#*$'\n\n'}"
else
  code=$(printf '%s\n' "$response" | head -n1 | cut -d' ' -f2)
  echo "${code:-000}"
fi
