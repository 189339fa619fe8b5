#!/usr/bin/env bash
# iogauge at the practical limit: one pinned core of 4 KiB random O_DIRECT reads at QD32 on
# /dev/zram0 (a RAM block device: the kernel's block path with no hardware in the way), run
# alternately by fio's t/io_uring (Jens Axboe's peak-IOPS tool), iogauge (default; with
# --complete-batch 32, its best; one completion per wait, fio's way), fio's io_uring engine (default, and tuned: fixedbufs, registerfiles,
# batches of 8); then latency mode at QD1 and QD32 against t/io_uring -t1 and fio's clat; then
# two threads on two CPUs against one. Prints the median of each and the ratios.
#
#   bench/compare_tio.sh [ROUNDS]           (default 5 rounds of 4 s each run)
#
# t/io_uring is built from fio's source where it is at hand: FIO_SRC (a fio source folder),
# or FIO_GIT (a fio git repository; FIO_REF, default HEAD, is the commit built). Without
# either, or without root, zram, fio or python3, the script says what is missing and exits 0
# (SKIPPED): CI cannot download fio's source.
#
# Safety: /dev/zram0 is only used when its disksize is 0 (no one is using it); the script
# sizes it, only reads it, and resets it at the end. Environment: SECS (4), CPU (the CPU to
# pin to, default the last), ZRAM_SIZE (1G), IOGAUGE (default target/release/iogauge).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
ROUNDS=${1:-5}
SECS=${SECS:-4}
NCPU=$(nproc)
CPU=${CPU:-$((NCPU - 1))}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
WORK="$HERE/work/tio"
IOGAUGE=${IOGAUGE:-$ROOT/target/release/iogauge}
DEV=/dev/zram0

skip() { echo "SKIPPED: compare_tio.sh: $*"; exit 0; }
# t/io_uring prints its first IOPS line after a second: a shorter run has no figure.
[ "$SECS" -ge 2 ] || { echo "compare_tio.sh: SECS=$SECS: at least 2 (t/io_uring reports once a second)" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || skip "needs root (zram)"
command -v fio >/dev/null || skip "no fio (bash scripts/install-test-tools.sh)"
command -v python3 >/dev/null || skip "no python3"
command -v taskset >/dev/null || skip "no taskset"

# --- t/io_uring, built from fio's source -------------------------------------------------
build_tio() {
    local src
    mkdir -p "$WORK"
    if [ -n "${FIO_SRC:-}" ]; then
        src=$FIO_SRC
    elif [ -n "${FIO_GIT:-}" ]; then
        src="$WORK/fio-src"
        rm -rf "$src"; mkdir -p "$src"
        git --git-dir="$FIO_GIT" archive "${FIO_REF:-HEAD}" | tar -x -C "$src"
    else
        skip "no fio source: set FIO_SRC=<fio source folder> or FIO_GIT=<fio git repository>"
    fi
    [ -f "$src/t/io_uring.c" ] || skip "'$src' holds no t/io_uring.c"
    if [ ! -x "$src/t/io_uring" ]; then
        (cd "$src" && { [ -f config-host.h ] || ./configure --disable-native >/dev/null; } &&
            make -j"$NCPU" t/io_uring >/dev/null) || skip "t/io_uring did not build in '$src'"
    fi
    TIO="$src/t/io_uring"
    TIO_FROM="$src ($(git --git-dir="${FIO_GIT:-/nonexistent}" describe --tags "${FIO_REF:-HEAD}" 2>/dev/null || echo 'source folder'))"
}
build_tio
[ -x "$IOGAUGE" ] || (cd "$ROOT" && cargo build --release --quiet)

# --- zram: only an unused one, reset at the end --------------------------------------------
[ -e /sys/block/zram0 ] || modprobe zram 2>/dev/null || true
[ -e /sys/block/zram0 ] || skip "no zram device (modprobe zram)"
[ "$(cat /sys/block/zram0/disksize)" = 0 ] || skip "/dev/zram0 is in use (disksize $(cat /sys/block/zram0/disksize)): not touched"
echo "$ZRAM_SIZE" > /sys/block/zram0/disksize
trap 'echo 1 > /sys/block/zram0/reset' EXIT
# Every page once written reads as data, not as zram's empty-page shortcut.
dd if=/dev/urandom of=$DEV bs=1M count=$(( $(cat /sys/block/zram0/disksize) >> 20 )) oflag=direct status=none

pin() { taskset -c "$CPU" "$@"; }

# Each runner prints one figure: IOPS, or mean latency in ns where LAT=1.
# t/io_uring's latency percentiles need the TSC's rate (-T): the one iogauge calibrated.
TSC_HZ=$(taskset -c "$CPU" "$IOGAUGE" run --engine null -d 1 -W 0 --no-save --output json \
    -c 1M "$WORK/tsc-probe.dat" 2>/dev/null | python3 -c '
import json, sys
print(int(json.load(sys.stdin)["clock"].get("tsc_hz") or 0))' || echo 0)
rm -f "$WORK/tsc-probe.dat"

run_tio() { # depth latency
    local out
    # In the work folder: t/io_uring -T saves the rate as ./tsc-rate wherever it runs.
    out=$(cd "$WORK" && pin "$TIO" -d"$1" -s"$1" -c"$1" -p0 -B1 -F1 -n1 -t"$2" -T"$TSC_HZ" -r"$SECS" $DEV 2>&1)
    if [ "$2" = 1 ]; then
        # t/io_uring -t1 prints percentiles, not a mean: its median is given, in ns.
        echo "$out" | python3 -c '
import re, sys
t = sys.stdin.read()
unit = re.search(r"percentiles \((usec|nsec|tsc ticks)\)", t)
m = re.search(r"50\.0+th=\[\s*([0-9.]+)\]", t)
scale = {"usec": 1000, "nsec": 1}.get(unit.group(1) if unit else "", None)
print(float(m.group(1)) * scale if m and scale else "nan")'
    else
        echo "$out" | python3 -c '
import re, sys, statistics
v = []
for m in re.finditer(r"^IOPS=([0-9.]+)([KM]?),", sys.stdin.read(), re.M):
    v.append(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)])
print(statistics.median(v[1:] or v) if v else "nan")'
    fi
}

run_iog() { # depth latency threads extra...
    local depth=$1 lat=$2 threads=$3; shift 3
    local flags=(run --no-save --output json -b 4k -r -o "$depth" --cache direct --engine io_uring
        -d "$SECS" -W 1 -t "$threads")
    [ "$lat" = 1 ] && flags+=(-L)
    local cpus=$CPU
    [ "$threads" -gt 1 ] && cpus="0-$((threads - 1))"
    taskset -c "$cpus" "$IOGAUGE" "${flags[@]}" "$@" $DEV 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["total"]["read"]
print(d["latency"]["mean_ns"] if sys.argv[1] == "1" else d["iops"])' "$lat"
}

run_fio() { # depth latency extra...
    local depth=$1 lat=$2; shift 2
    pin fio --name=z --filename=$DEV --rw=randread --bs=4k --iodepth="$depth" --ioengine=io_uring \
        --direct=1 --norandommap --time_based --runtime="$SECS" --ramp_time=1 \
        --output-format=json "$@" 2>/dev/null | python3 -c '
import json, sys
t = sys.stdin.read()
r = json.loads(t[t.index("{"):])["jobs"][0]["read"]
print(r["clat_ns"]["mean"] if sys.argv[1] == "1" else r["iops"])' "$lat"
}

TUNED=(--fixedbufs --registerfiles --iodepth_batch_submit=8 --iodepth_batch_complete_min=8
    --iodepth_batch_complete_max=32)

declare -A RES
record() { RES[$1]="${RES[$1]:-} $2"; printf '  %-22s %s\n' "$1" "$2"; }

echo "compare_tio.sh: $ROUNDS rounds of ${SECS}s, pinned to CPU $CPU of $NCPU, $DEV ($ZRAM_SIZE)"
echo "t/io_uring: $TIO_FROM"
echo "fio: $(fio --version)   iogauge: $("$IOGAUGE" --version | head -n 1) ($IOGAUGE)"
echo "kernel: $(uname -r)   cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
for r in $(seq 1 "$ROUNDS"); do
    echo "round $r"
    record tio-qd32 "$(run_tio 32 0)"
    record iog-qd32 "$(run_iog 32 0 1)"
    record iog-qd32-batch32 "$(run_iog 32 0 1 --complete-batch 32)"
    record iog-qd32-each "$(run_iog 32 0 1 --submit-batch 1 --complete-batch 1)"
    record fio-qd32 "$(run_fio 32 0)"
    record fio-tuned-qd32 "$(run_fio 32 0 "${TUNED[@]}")"
    record lat-tio-qd1-p50 "$(run_tio 1 1)"
    record lat-iog-qd1 "$(run_iog 1 1 1)"
    record lat-fio-qd1 "$(run_fio 1 1)"
    record lat-iog-qd32 "$(run_iog 32 1 1)"
    record lat-fio-qd32 "$(run_fio 32 1)"
    if [ "$NCPU" -ge 2 ]; then
        record iog-2t-qd32 "$(run_iog 32 0 2)"
    fi
done

median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:] if x!="nan"]; print(statistics.median(v) if v else float("nan"))' $1; }
declare -A MED
for k in "${!RES[@]}"; do MED[$k]=$(median "${RES[$k]}"); done
ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f"{a/b:.2f}x" if b else "n/a")' "${MED[$1]}" "${MED[$2]}"; }

echo
echo "Medians (IOPS; lat-*: mean completion latency in ns, t/io_uring's its median)"
for k in tio-qd32 iog-qd32 iog-qd32-batch32 iog-qd32-each fio-qd32 fio-tuned-qd32 iog-2t-qd32 \
    lat-tio-qd1-p50 lat-iog-qd1 lat-fio-qd1 lat-iog-qd32 lat-fio-qd32; do
    [ -n "${MED[$k]:-}" ] && printf '  %-22s %.0f\n' "$k" "${MED[$k]}"
done
echo
echo "Ratios (goal in brackets)"
echo "  iogauge / t/io_uring          $(ratio iog-qd32 tio-qd32)   [>= 0.90x]"
echo "  iogauge batch32 / t/io_uring  $(ratio iog-qd32-batch32 tio-qd32)   [>= 0.95x, best settings]"
echo "  iogauge / fio tuned           $(ratio iog-qd32 fio-tuned-qd32)   [>= 1.10x]"
echo "  iogauge / fio                 $(ratio iog-qd32 fio-qd32)"
echo "  iogauge one at a time / t/io_uring  $(ratio iog-qd32-each tio-qd32)   (fio's way: a call and a wake-up per I/O)"
[ -n "${MED[iog-2t-qd32]:-}" ] &&
    echo "  2 threads / 1 thread          $(ratio iog-2t-qd32 iog-qd32)   [>= 1.9x]"
echo "  latency QD1: iogauge / fio    $(ratio lat-iog-qd1 lat-fio-qd1)   [<= 1.00x]"
echo "  latency QD32: iogauge / fio   $(ratio lat-iog-qd32 lat-fio-qd32)   [<= 1.00x]"
