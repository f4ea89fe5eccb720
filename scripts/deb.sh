#!/usr/bin/env bash
# make deb: a Debian package of `make install` with PREFIX=/usr, built with dpkg-deb, in
# .build/deb/xpb_VERSION_ARCH.deb. The binary is static, so the package depends on nothing.
# XPB_BIN (default .build/release/xpb) is the binary packaged; MANUAL_TOOL as for install.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
XPB_BIN=${XPB_BIN:-.build/release/xpb}
version=$("$XPB_BIN" --version)
arch=$(dpkg --print-architecture)
out=.build/deb
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
PREFIX=/usr DESTDIR="$stage" ZSH_COMPLETIONS=/usr/share/zsh/vendor-completions XPB_BIN="$XPB_BIN" scripts/install.sh install
gzip -9n "$stage"/usr/share/man/man1/*.1
install -d "$stage/DEBIAN" "$stage/usr/share/doc/xpb"
install -m 644 README.md "$stage/usr/share/doc/xpb/README.md"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: xpb
Version: $version
Architecture: $arch
Maintainer: xpb maintainers <xpb@users.noreply.github.com>
Installed-Size: $size
Section: x11
Priority: optional
Homepage: https://github.com/xpb/xpb
Description: X11 clipboard tool: copy, paste, list and watch selections
 xpb copies, pastes, lists and watches X11 selections (CLIPBOARD, PRIMARY,
 SECONDARY) from the shell, speaking the selection protocol as Qt and GTK
 do (TARGETS, TIMESTAMP, MULTIPLE, INCR). It also installs pbcopy and
 pbpaste, and drop-in xclip and xsel in /usr/lib/xpb/compat: put that
 directory first on PATH to have programs that call xclip or xsel use xpb.
CONTROL
mkdir -p "$out"
dpkg-deb --build --root-owner-group "$stage" "$out/xpb_${version}_${arch}.deb" >/dev/null
echo "$out/xpb_${version}_${arch}.deb"
