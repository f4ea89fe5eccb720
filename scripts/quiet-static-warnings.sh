#!/usr/bin/env bash
# Runs a command (the static release build) and passes its output through, except the linker's
# known warnings about glibc functions in a static binary: getaddrinfo, getpw*_r, getgr*_r and
# dlopen "require at run time the shared libraries from the glibc version used for linking"
# (true, harmless for a binary built where it runs: only TCP displays and unused Foundation paths
# reach them), and Foundation's use of mktemp. A newcomer read twenty of them as a failed build.
# Every other line, errors and other warnings included, is shown; the command's status is kept.
set -uo pipefail
known="requires at runtime the shared libraries from the glibc version used for linking|the use of \`mktemp' is dangerous"
hidden=$(mktemp)
trap 'rm -f "$hidden"' EXIT
"$@" 2>&1 | while IFS= read -r line; do
    if [[ $line =~ $known ]]; then echo >>"$hidden"; else printf '%s\n' "$line"; fi
done
status=${PIPESTATUS[0]}
count=$(wc -l <"$hidden")
[ "$count" -gt 0 ] && echo "($count known glibc static-link warnings hidden: see the Makefile's release target)"
exit "$status"
