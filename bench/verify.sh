#!/usr/bin/env bash
# What --verify costs, and iogauge's verifying run against fio's (verify=crc32c), side by
# side, alternating (the run without first in odd rounds, with first in even ones). Prints
# each pair's IOPS and their ratio, and the medians.
#
#   bench/verify.sh [ROUNDS]
#
# Cases (ONLY picks some): null (4K random writes at QD32 on the null engine: the header and
# claim work alone, nothing stored), tmpfs (4K 70/30 random on a 1 GiB tmpfs file at QD32,
# direct: reads checked, the storage about free), disk (4K random writes at QD32, direct, on
# the work disk: the cost where a device does the work), fio (the same 256 MiB of 4K random
# writes at QD32 with fio's verify=crc32c and with iogauge's --verify: write IOPS of each,
# and whole commands, read-back included). Env: WORK (a folder on the work disk; default
# bench/work), SECONDS_EACH (5).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
ONLY=${ONLY:-null tmpfs disk fio}
WORK=${WORK:-$PWD/bench/work}
SECS=${SECONDS_EACH:-5}
cargo build --release --quiet
IOG=$PWD/target/release/iogauge
mkdir -p bench/results "$WORK"
out="bench/results/$(date +%F)-$(hostname)-verify.txt"
echo "$(date -u +%FT%TZ) $(nproc) CPUs, $(uname -r), $SECS s each" | tee -a "$out"
shm=$(mktemp -d /dev/shm/iogauge-verify.XXXXXX)
trap 'rm -rf "$shm" "$WORK"/verify-*' EXIT
iops() { python3 -c 'import json,sys; print(round(json.load(sys.stdin)["total"]["all"]["iops"]))'; }
median() { sort -n | awk '{v[NR]=$1} END {m=int((NR+1)/2); print (NR%2 ? v[m] : (v[m]+v[m+1])/2)}'; }

# NAME, iogauge's flags (without --verify), the target.
pair() {
    local name=$1 flags=$2 target=$3 ratios=()
    for i in $(seq "$ROUNDS"); do
        local a b
        if (( i % 2 )); then
            a=$("$IOG" run $flags "$target" --no-save --output json 2>/dev/null | iops)
            b=$("$IOG" run $flags --verify "$target" --no-save --output json 2>/dev/null | iops)
        else
            b=$("$IOG" run $flags --verify "$target" --no-save --output json 2>/dev/null | iops)
            a=$("$IOG" run $flags "$target" --no-save --output json 2>/dev/null | iops)
        fi
        local r
        r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
        ratios+=("$r")
        echo "$name round $i: without $a IOPS, with --verify $b IOPS: ratio $r"
    done
    echo "$name: median ratio $(printf '%s\n' "${ratios[@]}" | median) (with / without)"
}

fio_pair() {
    command -v fio >/dev/null || { echo "fio: not installed (scripts/install-test-tools.sh)"; return; }
    local f="$WORK/verify-fio.dat" ratios=() wall=()
    for i in $(seq "$ROUNDS"); do
        rm -f "$f"
        # Lay the file out outside the timing, for both.
        "$IOG" run -c 256M -b 4k -s -w 0 -d 0.1 -W 0 --keep --verify "$f" --no-save >/dev/null 2>&1
        run_fio() {
            local t0 t1
            t0=$(date +%s.%N)
            # fio saves its verify state in the current folder (local-v-0-verify.state):
            # keep it in the work folder, not wherever the script was started.
            (cd "$WORK" && fio --name=v --filename="$f" --size=256M --rw=randwrite --bs=4k --iodepth=32 \
                --ioengine=io_uring --direct=1 --verify=crc32c --output-format=json 2>/dev/null) \
                | python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(round(j["write"]["iops"]))'
            t1=$(date +%s.%N)
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >&2
        }
        run_iog() {
            local t0 t1
            t0=$(date +%s.%N)
            "$IOG" run -c 256M -b 4k -r -w 100 -o 32 --total 256M -W 0 --engine io_uring \
                --verify --verify-load --keep --allow-overwrite "$f" --no-save --output json 2>/dev/null | iops
            t1=$(date +%s.%N)
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >&2
        }
        local fi fs ii is
        if (( i % 2 )); then
            fi=$(run_fio 2>"$WORK/verify-t"); fs=$(cat "$WORK/verify-t")
            ii=$(run_iog 2>"$WORK/verify-t"); is=$(cat "$WORK/verify-t")
        else
            ii=$(run_iog 2>"$WORK/verify-t"); is=$(cat "$WORK/verify-t")
            fi=$(run_fio 2>"$WORK/verify-t"); fs=$(cat "$WORK/verify-t")
        fi
        local r w
        r=$(awk -v a="$fi" -v b="$ii" 'BEGIN { printf "%.3f", b / a }')
        w=$(awk -v a="$fs" -v b="$is" 'BEGIN { printf "%.3f", a / b }')
        ratios+=("$r")
        wall+=("$w")
        echo "fio round $i: fio verify=crc32c $fi write IOPS ($fs s whole), iogauge --verify $ii ($is s whole): IOPS ratio $r, whole-command speed ratio $w"
        rm -f "$f" "$f.iogauge-verify"
    done
    echo "fio: median IOPS ratio $(printf '%s\n' "${ratios[@]}" | median), whole-command $(printf '%s\n' "${wall[@]}" | median) (iogauge / fio; goal >= 1.0)"
}

for case in $ONLY; do
    case $case in
    null) pair "null QD32 4K randwrite" "--engine null -c 256M -o 32 -r -b 4k -w 100 -d $SECS -W 1" "$WORK/verify-null.dat" ;;
    tmpfs) pair "tmpfs QD32 4K 70/30 direct" "-c 1G -o 32 -r -b 4k -w 30 -d $SECS -W 1 --engine io_uring" "$shm/t.dat" ;;
    disk) pair "work disk QD32 4K randwrite direct" "-c 1G -o 32 -r -b 4k -w 100 -d $SECS -W 1 --engine io_uring" "$WORK/verify-disk.dat" ;;
    fio) fio_pair ;;
    *) echo "unknown case '$case' in ONLY" >&2; exit 2 ;;
    esac
done 2>&1 | tee -a "$out"
