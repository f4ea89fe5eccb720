#!/usr/bin/env bash
# The main job: a copy/paste round trip with the release xpb, showing the types on offer.
set -euo pipefail
xpb=${XPB:-.build/release/xpb}
text="xpb works: ünïcödé ✓ $(date +%T)"
printf '%s' "$text" | "$xpb" copy
echo "copied:  $text"
echo "types:"
"$xpb" types | sed 's/^/  /'
pasted=$("$xpb" paste)
echo "pasted:  $pasted"
[ "$pasted" = "$text" ] && echo "round trip OK on DISPLAY=$DISPLAY" || { echo "round trip FAILED" >&2; exit 1; }
"$xpb" clear
