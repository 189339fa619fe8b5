#!/usr/bin/env bash
# What running as MPI ranks costs: 4 ranks under mpirun against 4 iogauge processes started
# together without MPI, alternating, on the null engine (no storage: iogauge's own rate), and
# the ratio of their summed IOPS (the goal: at least 0.95). Also the ranks' start spread, from
# the aggregate's JSON (the goal: under 1 ms). Both sides share the machine's cores alike, so
# the ratio holds on a 2-core machine; the absolute rates do not. Then the start spread with
# a core per rank.
#
#   bench/mpi_overhead.sh [ROUNDS]
#
# Needs OpenMPI (scripts/install-test-tools.sh) and builds iogauge --release --features mpi.
# Env: WORK_DIR (default bench/work), NP (default 4), SECS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
NP=${NP:-4}
SECS=${SECS:-3}
WORK_DIR=${WORK_DIR:-bench/work}
mkdir -p "$WORK_DIR"
cargo build --release --quiet --features mpi
IOG=$PWD/target/release/iogauge
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job=(run --engine null -b 4k -c 64M -d "$SECS" --no-save -q --output json)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p bench/results
out="bench/results/$(date +%F)-$(hostname)-mpi.txt"
echo "$(nproc) CPUs, $NP ranks, ${SECS}s each, null engine, 4k" >"$out"
for i in $(seq "$ROUNDS"); do
    # stderr: the short run's and the busy CPUs' warnings, expected here.
    mpirun --oversubscribe -np "$NP" "$IOG" "${job[@]}" "$WORK_DIR/mpi.{rank}" >"$tmp/ranks.json" 2>/dev/null
    for r in $(seq 0 $((NP - 1))); do
        "$IOG" "${job[@]}" "$WORK_DIR/solo.$r" >"$tmp/solo.$r.json" 2>/dev/null &
    done
    wait
    python3 - "$tmp" "$NP" "$i" <<'PY'
import json, sys, glob
tmp, np, i = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ranks = json.load(open(f"{tmp}/ranks.json"))
mpi = sum(r["total"]["all"]["iops"] for r in ranks["cluster"]["rank_rows"])
solo = sum(json.load(open(f))["total"]["all"]["iops"] for f in glob.glob(f"{tmp}/solo.*.json"))
skew = ranks["cluster"]["start_skew_ns"] / 1e6
print(f"round {i}: {np} ranks {mpi:,.0f} IOPS (sum of rank rates), {np} lone processes "
      f"{solo:,.0f} IOPS: ratio {mpi / solo:.3f}; ranks started within {skew:.3f} ms")
PY
done | tee -a "$out"
# The start spread where each rank has a core of its own (one worker thread, as many ranks
# as CPUs): above, NP busy ranks share the cores, and a rank's control thread may wait for
# a time slice behind another rank's workers that already started.
cores=$(nproc)
for i in $(seq "$ROUNDS"); do
    mpirun --oversubscribe -np "$cores" "$IOG" "${job[@]}" -t 1 "$WORK_DIR/core.{rank}" 2>/dev/null |
        python3 -c "import json, sys; c = json.load(sys.stdin)['cluster']
print(f'a core per rank ({c[\"ranks\"]} ranks, 1 thread each): started within {c[\"start_skew_ns\"] / 1e3:.1f} us')"
done | tee -a "$out"
echo "saved in $out" >&2
