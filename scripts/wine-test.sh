#!/usr/bin/env bash
# The Windows build's tests, under Wine on Linux (on Windows itself: cargo test --lib --test
# windows). Runs the library's unit tests and tests/windows.rs (iogauge.exe end to end) built
# for x86_64-pc-windows-gnu, each .exe started by scripts/wine-run.sh. This checks iogauge's use
# of the Win32 API and its results, not Windows' semantics or speed: Wine accepts
# FILE_FLAG_NO_BUFFERING and ignores it, does overlapped I/O in the calling thread, and has no
# SMB. Needs what scripts/install-test-tools.sh installs (wine64, mingw, the Rust target);
# without them it says SKIPPED, and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu \
    || missing+=("rustup's x86_64-pc-windows-gnu target")
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=("mingw (gcc-mingw-w64-x86-64)")
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null || missing+=("wine64")
if [ ${#missing[@]} -gt 0 ]; then
    echo "SKIPPED: the Windows build's tests under Wine: no ${missing[*]} (bash scripts/install-test-tools.sh)"
    exit 0
fi
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$PWD/scripts/wine-run.sh"
cargo test --target x86_64-pc-windows-gnu --lib --test windows "$@"
