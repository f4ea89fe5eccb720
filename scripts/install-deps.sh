#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages xpb builds, tests and benchmarks with, if any is missing.
set -euo pipefail
packages=(libx11-dev libxfixes-dev libbsd-dev libmd-dev libsqlite3-dev pkg-config xvfb xclip xsel x11-utils time openssh-server autocutsel python3-pyqt5 python3-gi gir1.2-gtk-3.0 python3-xlib man-db neovim pass gnupg)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
