# Sourced by scripts/wine/setup.sh and scripts/wine-run.sh: where the test Wine lives and which
# Wine programs to run. Sets wine_dir, wine_loader and wine_server, and exports the environment
# every Wine call here runs in. Sourcing it checks nothing; wine_require does.

wine_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Under target/: git ignores it (scripts/check-clean.sh sees no change), any user can write it,
# and `cargo clean` removes it. The prefix is about 700 MB (Wine copies its DLLs into it).
wine_dir=${IOGAUGE_WINE_DIR:-$wine_repo/target/wine}
export WINEPREFIX=$wine_dir/prefix
# Wine's own diagnostics ("fixme:" lines) would mix into the output tests compare; set
# WINEDEBUG yourself to see them.
export WINEDEBUG=${WINEDEBUG:--all}
# No window, ever: with no display Wine runs console programs without trying X or Wayland.
unset DISPLAY WAYLAND_DISPLAY
# Mono and Gecko: wineboot would offer to download them; the menu builder would write
# desktop entries into $HOME. Neither is wanted for console programs.
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=;winemenubuilder.exe=d}

# Debian 12 (wine64 8.0) puts the 64-bit loader in /usr/lib/wine and no wine64 on PATH; its
# /usr/bin/wine is a wrapper (from the `wine` package) that ends up there too. Upstream builds
# have wine64 on PATH, and Wine 9 and later have a single `wine`.
wine_loader=""
for c in /usr/lib/wine/wine64 "$(command -v wine64 || true)" "$(command -v wine || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then wine_loader=$c; break; fi
done
# The server the loader starts is the one beside it, so that is the one to wait for. Debian's
# /usr/lib/wine/wineserver is a wrapper that starts the server with -p0: it ends as soon as its
# last Windows process has (upstream's default lingers 3 s).
wine_server=""
for c in "${wine_loader%/*}/wineserver" "$(command -v wineserver || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then wine_server=$c; break; fi
done

wine_mingw=x86_64-w64-mingw32-gcc

# Exits 1 with one line naming what is missing.
wine_require() {
    local missing=()
    [ -n "$wine_loader" ] && [ -n "$wine_server" ] \
        || missing+=("wine64 (Wine's 64-bit loader and wineserver)")
    command -v "$wine_mingw" >/dev/null || missing+=("$wine_mingw (package gcc-mingw-w64-x86-64)")
    if [ ${#missing[@]} -gt 0 ]; then
        echo "wine setup: missing ${missing[0]}${missing[1]:+ and ${missing[1]}};" \
            "bash scripts/install-test-tools.sh installs them" >&2
        exit 1
    fi
}
