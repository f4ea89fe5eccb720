#!/usr/bin/env bash
# make install / make uninstall: puts xpb, its drop-in names, man pages, shell completions (and
# the daemon's systemd user unit, once that has landed) under $DESTDIR$PREFIX.
#
#   scripts/install.sh install|uninstall
#   PREFIX (default /usr/local), DESTDIR (default empty), XPB_BIN (the binary to install,
#   default .build/release/xpb), MANUAL_TOOL (ArgumentParser's generate-manual; built when unset),
#   ZSH_COMPLETIONS (default $PREFIX/share/zsh/site-functions), DAEMON_UNIT (default
#   dist/systemd/xpb-daemon.service: installed with ExecStart pointing into $PREFIX when present).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?usage: scripts/install.sh install|uninstall}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
XPB_BIN=${XPB_BIN:-.build/release/xpb}
ZSH_COMPLETIONS=${ZSH_COMPLETIONS:-$PREFIX/share/zsh/site-functions}
root="$DESTDIR$PREFIX"
# The daemon issue's unit; DAEMON_UNIT names another (the tests).
unit=${DAEMON_UNIT:-dist/systemd/xpb-daemon.service}

# Everything install creates, relative to $root (man pages are listed when installed).
files=(bin/xpb bin/pbcopy bin/pbpaste lib/xpb/compat/xclip lib/xpb/compat/xsel
       share/bash-completion/completions/xpb share/fish/vendor_completions.d/xpb.fish
       lib/systemd/user/xpb-daemon.service)

uninstall() {
    for f in "${files[@]}"; do rm -f "$root/$f"; done
    rm -f "$DESTDIR$ZSH_COMPLETIONS/_xpb" "$root"/share/man/man1/xpb.1 "$root"/share/man/man1/xpb.*.1
    rmdir "$root/lib/xpb/compat" "$root/lib/xpb" 2>/dev/null || true
}

install_all() {
    [ -x "$XPB_BIN" ] || { echo "install: no xpb at $XPB_BIN (make release, or XPB_BIN=path)" >&2; exit 1; }
    install -d "$root/bin" "$root/lib/xpb/compat" "$root/share/man/man1" \
        "$root/share/bash-completion/completions" "$root/share/fish/vendor_completions.d" "$DESTDIR$ZSH_COMPLETIONS"
    # Stripped: the symbols are 40% of the static binary and no user needs them.
    install -m 755 "$XPB_BIN" "$root/bin/xpb"
    strip --strip-all "$root/bin/xpb"
    # The drop-ins are links: xpb takes its personality from the name it runs under.
    ln -sf xpb "$root/bin/pbcopy"
    ln -sf xpb "$root/bin/pbpaste"
    ln -sf ../../../bin/xpb "$root/lib/xpb/compat/xclip"
    ln -sf ../../../bin/xpb "$root/lib/xpb/compat/xsel"

    # Man pages and completions come from the ArgumentParser definitions, so they cannot drift.
    tool=${MANUAL_TOOL:-.build/debug/generate-manual}
    # Built once (as whoever runs this; under sudo, build it first as yourself: see the README).
    [ -x "$tool" ] || swift build --product generate-manual >/dev/null
    pages=$(mktemp -d)
    trap 'rm -rf "$pages"' EXIT
    "$tool" "$XPB_BIN" --multi-page --date "$(date -u -r "$XPB_BIN" +%F)" --authors "xpb maintainers" -o "$pages" >/dev/null
    rm -f "$pages"/xpb.help.1
    install -m 644 "$pages"/*.1 "$root/share/man/man1/"
    "$XPB_BIN" --generate-completion-script bash >"$root/share/bash-completion/completions/xpb"
    "$XPB_BIN" --generate-completion-script zsh >"$DESTDIR$ZSH_COMPLETIONS/_xpb"
    "$XPB_BIN" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/xpb.fish"

    # The daemon's user unit, from the daemon issue: installed once it is in the tree.
    if [ -f "$unit" ]; then
        install -d "$root/lib/systemd/user"
        sed "s|/usr/local/bin/xpb|$PREFIX/bin/xpb|g" "$unit" >"$root/lib/systemd/user/xpb-daemon.service"
        chmod 644 "$root/lib/systemd/user/xpb-daemon.service"
    fi
}

case "$action" in
    install) install_all ;;
    uninstall) uninstall ;;
    *) echo "usage: scripts/install.sh install|uninstall" >&2; exit 2 ;;
esac
