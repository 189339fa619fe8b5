#!/usr/bin/env bash
# A long verifying run: 64 threads of mixed 4K random I/O with --verify on the work disk for
# 10 minutes (MINUTES), iogauge's resident memory sampled every 10 s. Passes when nothing
# mismatched, the memory stayed flat (the last sample within 10% of the first after the
# warm-up), and the intervals sum to the totals.
#
#   bench/verify_soak.sh
#
# Env: MINUTES (10), THREADS (64), SIZE (4G), WORK (a folder on the work disk; bench/work).
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-10}
THREADS=${THREADS:-64}
SIZE=${SIZE:-4G}
WORK=${WORK:-$PWD/bench/work}
cargo build --release --quiet
IOG=$PWD/target/release/iogauge
mkdir -p bench/results "$WORK"
out="bench/results/$(date +%F)-$(hostname)-verify-soak.txt"
f="$WORK/soak.dat"
json="$WORK/soak.json"
trap 'rm -f "$f" "$json"' EXIT
secs=$((MINUTES * 60))
echo "$(date -u +%FT%TZ) $(nproc) CPUs: $THREADS threads, 4K random 70/30, QD4 each, --verify, $SIZE, $MINUTES min" | tee -a "$out"
"$IOG" run -c "$SIZE" -t "$THREADS" -o 4 -r -b 4k -w 30 -d "$secs" -W 5 --engine io_uring \
    --verify --verify-continue --interval 10000 "$f" --no-save --output json >"$json" 2>/dev/null &
pid=$!
# Sampled while the run measures (after its 5 s warm-up and 20 s more), not during the
# read-back pass after it, whose buffers are its own.
rss=()
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    r=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    t=$(($(date +%s) - start))
    [ -n "$r" ] && echo "rss ${r} KiB at ${t}s" | tee -a "$out"
    [ -n "$r" ] && [ "$t" -ge 25 ] && [ "$t" -le $((secs + 5)) ] && rss+=("$r")
done
wait "$pid" || true
python3 - "$json" "${rss[@]}" <<'PY' | tee -a "$out"
import json, sys
r = json.load(open(sys.argv[1]))
rss = [int(x) for x in sys.argv[2:]]
v = r["verify"]
ios = sum(s["read"]["ios"] + s["write"]["ios"] for s in r["time_series"]["samples"])
total = r["total"]["all"]["ios"]
after = rss
flat = bool(after) and max(after) <= after[0] * 1.10
print(f"IOPS {r['total']['all']['iops']:.0f}; units checked as read {v['checked']}; "
      f"read back {v.get('pass', {}).get('checked')}; mismatches {v['mismatch_count']}")
print(f"intervals sum to {ios} I/Os, totals {total}: {'equal' if ios == total else 'DIFFERENT'}")
print(f"resident memory (KiB) after warm-up: first {after[0] if after else '-'}, "
      f"max {max(after) if after else '-'}, last {after[-1] if after else '-'}: "
      f"{'flat' if flat else 'GREW'}")
ok = v["mismatch_count"] == 0 and ios == total and flat
print("soak: " + ("PASSED" if ok else "FAILED"))
sys.exit(0 if ok else 1)
PY
