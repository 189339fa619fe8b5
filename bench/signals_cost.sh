#!/usr/bin/env bash
# What sampling "what limited this run" costs (issue 41's goal: at most 1% of iogauge's own
# throughput): compare_fio.sh's null-qd1 job (no storage, latency mode, so the figure is
# iogauge's own cost per I/O), run with the signals sampled and with IOGAUGE_SIGNALS=off,
# alternating, and the ratio of each pair printed with their median.
#
#   bench/signals_cost.sh            PAIRS (default 5), SECS per run (default 5), IOG (a binary)
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
SECS=${SECS:-5}
if [ -z "${IOG:-}" ]; then
    cargo build --release -q
    IOG=$PWD/target/release/iogauge
fi
iops() {
    "$IOG" run --no-save --output json -b 4k -o 1 -r -L --cache buffered --engine null \
        -c 1M -d "$SECS" -W 1 "$WORK" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["total"]["all"]["iops"], r.get("signals",{}).get("cost_ns",0), r.get("signals",{}).get("samples",0))'
}
WORK=$(mktemp -d)/null.dat
trap 'rm -rf "$(dirname "$WORK")"' EXIT
ratios=()
echo "pair  off IOPS  on IOPS  on/off  sampling (samples, time on the control thread)"
for i in $(seq "$PAIRS"); do
    # Alternate which goes first, so that a drift of the machine does not favour one.
    if [ $((i % 2)) -eq 1 ]; then
        off=$(IOGAUGE_SIGNALS=off iops); on=$(iops)
    else
        on=$(iops); off=$(IOGAUGE_SIGNALS=off iops)
    fi
    read -r a _ _ <<<"$off"
    read -r b cost n <<<"$on"
    r=$(python3 -c "print(f'{$b/$a:.4f}')")
    ratios+=("$r")
    printf '%4d  %8.0f  %7.0f  %6s  %s samples, %s us\n' "$i" "$a" "$b" "$r" "$n" "$((cost / 1000))"
done
python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f'median on/off: {statistics.median(v):.4f} (min {min(v):.4f}, max {max(v):.4f})')" "${ratios[@]}"
