#!/usr/bin/env bash
# Cargo's runner for the Windows build: runs a .exe under Wine, in the prefix that
# scripts/wine/setup.sh makes (run here first; it does nothing when it has nothing to do).
#   CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=scripts/wine-run.sh \
#       cargo test --target x86_64-pc-windows-gnu
# Cargo passes the .exe's path, then its arguments; this may be called from any directory.
# The program's exit status is this script's (Unix keeps its low 8 bits only: an NTSTATUS
# such as 0xC0000409 from an abort comes out as 9).
#
# While a program runs, Wine's own services.exe, winedevice.exe, plugplay.exe, svchost.exe and
# wineserver64 run beside it; a Rust program itself shows in ps as `main` (std names its main
# thread, and Wine makes that the process's name), not as its .exe. Once the program has ended
# this waits for the wineserver to end (Debian's ends with its last process, about 1 s on, once
# those services have stopped), so that no Wine process is left running when a test run is over
# (scripts/check-clean.sh). That wait is shared: with two runs at once, the first waits for the
# second. IOGAUGE_WINE_NO_WAIT=1 skips it (a quicker edit-test loop; the server then ends on its
# own). A server still running 30 s on means a Windows process was left behind: said on stderr,
# and the status stays the program's.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/wine/common.sh"
bash "$here/wine/setup.sh" --quiet >&2 || exit 1
if [ $# -eq 0 ]; then
    echo "wine-run: no program given; usage: scripts/wine-run.sh PROGRAM.exe [ARGS...]" >&2
    exit 2
fi

# On a terminal, Wine's console would take the terminal over (raw mode, escape sequences):
# give it no stdin there. A pipe or file is passed on, for programs that read stdin.
if [ -t 0 ]; then
    "$wine_loader" "$@" </dev/null
else
    "$wine_loader" "$@"
fi
status=$?
if [ "${IOGAUGE_WINE_NO_WAIT:-0}" != 1 ]; then
    if ! timeout 30 "$wine_server" -w; then
        echo "wine-run: the wineserver for $WINEPREFIX still runs 30 s after $1 ended" \
            "(a Windows process left behind?)" >&2
    fi
fi
exit "$status"
