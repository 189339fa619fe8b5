#!/usr/bin/env bash
# Makes the Wine that runs iogauge's Windows build in tests (scripts/wine-run.sh calls this
# before every run): builds bcryptprimitives.dll (see bcryptprimitives.c for why), makes a Wine
# prefix of our own and puts the DLL in its system32, where the loader finds it for every
# program. Idempotent and cheap when nothing changed; redone when the DLL's source or Wine's
# version changes. Safe to run concurrently (a lock). Works with no display and no stdin.
#   bash scripts/wine/setup.sh [--quiet]
# Everything goes under $IOGAUGE_WINE_DIR (default target/wine): the DLL, the prefix, a log.
# Prints one line saying what it did (--quiet: nothing when there was nothing to do). Exits 1
# with one line if Wine or MinGW is missing or a step fails.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"
quiet=0
[ "${1:-}" = --quiet ] && quiet=1
wine_require

src=$here/bcryptprimitives.c
dll=$wine_dir/bcryptprimitives.dll
installed=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
log=$wine_dir/setup.log
mkdir -p "$wine_dir"
exec 9>"$wine_dir/lock"
flock 9

# What each part was made from: the DLL from its source, the prefix by a Wine version.
dll_want=$(sha256sum <"$src" | cut -d' ' -f1)
wine_want=$("$wine_loader" --version 2>/dev/null || echo unknown)
dll_have=$(cat "$wine_dir/dll.made-from" 2>/dev/null || true)
wine_have=$(cat "$wine_dir/prefix.made-by" 2>/dev/null || true)
if [ "$dll_have" = "$dll_want" ] && [ "$wine_have" = "$wine_want" ] && [ -f "$installed" ]; then
    [ "$quiet" = 1 ] || echo "wine setup: up to date ($wine_want, prefix $WINEPREFIX)"
    exit 0
fi

fail() {
    echo "wine setup: $1 (see $log)" >&2
    exit 1
}
: >"$log"
did=()
if [ "$dll_have" != "$dll_want" ] || [ ! -f "$dll" ]; then
    "$wine_mingw" -O2 -Wall -Wextra -Werror -shared -s -o "$dll.tmp" "$src" -lbcrypt >>"$log" 2>&1 \
        || fail "building bcryptprimitives.dll with $wine_mingw failed"
    mv "$dll.tmp" "$dll"
    echo "$dll_want" >"$wine_dir/dll.made-from"
    did+=("built bcryptprimitives.dll")
fi

# wineboot prints harmless complaints (no 32-bit Wine, no display) that go to the log only.
# Waiting for the server afterwards leaves no Wine process running once setup is done.
if [ "$wine_have" != "$wine_want" ] || [ ! -f "$WINEPREFIX/system.reg" ]; then
    if [ -f "$WINEPREFIX/system.reg" ]; then
        "$wine_loader" wineboot -u </dev/null >>"$log" 2>&1 || fail "wineboot -u failed"
        did+=("updated the prefix $WINEPREFIX for $wine_want")
    else
        rm -rf "$WINEPREFIX"
        if ! "$wine_loader" wineboot -i </dev/null >>"$log" 2>&1; then
            "$wine_server" -k >/dev/null 2>&1 || true
            rm -rf "$WINEPREFIX"
            fail "wineboot -i failed"
        fi
        did+=("made the prefix $WINEPREFIX ($wine_want)")
    fi
    timeout 60 "$wine_server" -w >>"$log" 2>&1 || fail "wineserver did not end after wineboot"
    echo "$wine_want" >"$wine_dir/prefix.made-by"
fi

[ -d "${installed%/*}" ] || fail "the prefix has no ${installed%/*}"
if ! cmp -s "$dll" "$installed"; then
    # A new name then a rename: a program of another run may have the old DLL mapped.
    cp "$dll" "$installed.tmp"
    mv "$installed.tmp" "$installed"
    did+=("put the DLL in its system32")
fi
list=$(printf '%s, ' "${did[@]}")
echo "wine setup: ${list%, }"
