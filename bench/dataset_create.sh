#!/usr/bin/env bash
# How fast `iogauge dataset create` makes a tree of small files, against `cp -r` of that same
# tree on the same file system (the issue's goal: at least 0.8x cp's rate). Alternating, a
# fresh copy each round; whole commands timed (iogauge's start, manifest and syncfs included).
# On tmpfs the storage costs little, so this is the tools' own cost per file.
#
#   bench/dataset_create.sh [ROUNDS]
#
# Env: FILES (100000), SIZES (fixed:4K), DIR (a tmpfs folder; default /dev/shm/iogauge-bench),
# THREADS (iogauge's; default: its own, the CPUs up to 8).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
FILES=${FILES:-100000}
SIZES=${SIZES:-fixed:4K}
DIR=${DIR:-/dev/shm/iogauge-bench}
cargo build --release --quiet
IOG=$PWD/target/release/iogauge
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
rm -rf "$DIR" && mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
mkdir -p bench/results
out="bench/results/$(date +%F)-$(hostname)-dataset.txt"
fs=$(stat -f -c %T "$DIR")
echo "$(nproc) CPUs, $fs, $FILES files of $SIZES, iogauge threads: ${THREADS:-default}" | tee -a "$out"
secs() { python3 -c 'import sys,time; print(time.monotonic())'; }
make() { "$IOG" dataset create "$DIR/made" --files "$FILES" --size-dist "$SIZES" "${threads[@]}" >/dev/null; }
for i in $(seq "$ROUNDS"); do
    rm -rf "$DIR/made" "$DIR/copy"
    if (( i % 2 )); then
        a=$(secs); make; b=$(secs)
        c=$(secs); cp -r "$DIR/made" "$DIR/copy"; d=$(secs)
    else
        # cp first: copy last round's tree, then make this round's anew.
        "$IOG" dataset create "$DIR/src" --files "$FILES" --size-dist "$SIZES" >/dev/null
        c=$(secs); cp -r "$DIR/src" "$DIR/copy"; d=$(secs)
        rm -rf "$DIR/src"
        a=$(secs); make; b=$(secs)
    fi
    python3 - "$a" "$b" "$c" "$d" "$FILES" "$i" <<'PY'
import sys
a, b, c, d, files, i = map(float, sys.argv[1:])
mk, cp = b - a, d - c
print(f"round {i:.0f}: iogauge dataset create {files / mk:,.0f} files/s ({mk:.2f} s), "
      f"cp -r {files / cp:,.0f} files/s ({cp:.2f} s): ratio {cp / mk:.2f}")
PY
done | tee -a "$out"
