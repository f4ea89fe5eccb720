#!/usr/bin/env bash
# Runs a command with DISPLAY pointing at a private Xvfb (started with -displayfd, so no fixed
# number can collide), and stops that server by its process id afterwards.
set -euo pipefail
fifo=$(mktemp -u) && mkfifo "$fifo"
Xvfb -displayfd 3 -nolisten tcp -noreset -screen 0 640x480x24 3>"$fifo" 2>/dev/null &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null; rm -f "$fifo"' EXIT
read -r -t 10 number <"$fifo" || { echo "Xvfb did not start" >&2; exit 1; }
DISPLAY=":$number" "$@"
