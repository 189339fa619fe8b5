#!/usr/bin/env bash
# The Windows build's tests, under Wine on Linux (on Windows itself: cargo test --lib --test
# windows). Runs the library's unit tests and tests/windows.rs (iogauge.exe end to end) built
# for x86_64-pc-windows-gnu, each .exe started by scripts/wine-run.sh. This checks iogauge's use
# of the Win32 API and its results, not Windows' semantics or speed: Wine accepts
# FILE_FLAG_NO_BUFFERING and ignores it, does overlapped I/O in the calling thread, and has no
# SMB. Needs what scripts/install-test-tools.sh installs (wine64, mingw, the Rust target).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$PWD/scripts/wine-run.sh"
cargo test --target x86_64-pc-windows-gnu --lib --test windows "$@"
