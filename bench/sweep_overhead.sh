#!/usr/bin/env bash
# A sweep's own cost: the share of its wall time spent neither in read/write/fsync/close calls
# nor in making and removing its files (the goal: under 2%), on three grids of the work disk, from the
# figures the sweep records in its JSON (wall_ns, io_ns, cleanup_ns). Beside it, dd reads a
# file of the largest size in the same record size, alternating with the sweep, and the
# ratio of the sweep's cached read to dd's is printed: the sweep's loop is no slower than dd's.
#
#   bench/sweep_overhead.sh
#
# Env: WORK_DIR (default bench/work), IOG (an iogauge binary; default: this tree's, --release).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK_DIR=${WORK_DIR:-bench/work}
mkdir -p "$WORK_DIR"
if [ -z "${IOG:-}" ]; then
    cargo build --release --quiet
    IOG=target/release/iogauge
fi
out="bench/results/$(date +%F)-$(hostname)-sweep"
mkdir -p "$out"
grids=(
    "small:--file-sizes 64K..4M --record-sizes 4K..1M"
    "medium:--file-sizes 1M..256M --record-sizes 64K..4M --tests write,rewrite,read,reread,random_read,backward_read"
    "large:--file-sizes 256M..1G --record-sizes 1M --tests write,read,reread"
)
for g in "${grids[@]}"; do
    name=${g%%:*}
    # shellcheck disable=SC2086
    "$IOG" sweep "$WORK_DIR" ${g#*:} --output json --no-save --quiet >"$out/$name.json"
    python3 - "$out/$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall, io, rm = r["wall_ns"], r["io_ns"], r["cleanup_ns"]
own = wall - io - rm
print(f"{sys.argv[2]:7s} cells {len(r['cells']):4d}  wall {wall/1e9:7.2f} s  "
      f"own {own*100/wall:5.2f}%  making+removing files {rm*100/wall:5.2f}%  I/O {io*100/wall:5.2f}%")
PY
done | tee "$out/summary.txt"
# The sweep's read loop against dd's, same file size and record size, alternating.
f="$WORK_DIR/dd-sweep-bench"
for pair in 1 2 3; do
    s=$("$IOG" sweep "$WORK_DIR" --file-sizes 256M --record-sizes 1M --tests write,read \
        --output json --no-save --quiet | python3 -c \
        'import json,sys; r=json.load(sys.stdin); c=[c for c in r["cells"] if c["test"]=="read"][0]; print(c["bytes"]*1e9/c["elapsed_ns"])')
    dd if=/dev/zero of="$f" bs=1M count=256 status=none
    d=$(dd if="$f" of=/dev/null bs=1M 2>&1 | python3 -c \
        'import sys,re; t=sys.stdin.read(); m=re.search(r"copied, ([0-9.]+) s", t); print(256*2**20/float(m.group(1)))')
    rm -f "$f"
    python3 -c "print(f'pair $pair: cached read 256M in 1M records: sweep {$s/1e6:.0f} MB/s, dd {$d/1e6:.0f} MB/s, ratio {$s/$d:.2f}')"
done | tee -a "$out/summary.txt"
echo "results in $out"
