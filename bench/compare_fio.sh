#!/usr/bin/env bash
# Run the same workload with fio and iogauge, alternating (fio, iogauge, fio, iogauge, ...),
# and print the iogauge/fio ratio of each pair. Machines here are shared and noisy: read the
# ratios within one run, not the absolute figures.
#
#   bench/compare_fio.sh [WORKLOAD...]     workloads: direct-qd32 shm-sync memory (default: all)
#
# Env: PAIRS (default 3), SECS per run (default 10), WORK_DIR (default bench/work, on the
# disk holding the repository; O_DIRECT must work there).
# Everything goes to bench/results/<date>-<host>/: raw JSON of every run and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
SECS=${SECS:-10}
WORK_DIR=${WORK_DIR:-bench/work}
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(direct-qd32 shm-sync memory)

if ! command -v fio >/dev/null; then
    echo "fio not found; installing Debian's package" >&2
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq fio >/dev/null
fi
cargo build --release -q
IOG=$PWD/target/release/iogauge

OUT=bench/results/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$OUT" "$WORK_DIR"
SUMMARY=$OUT/summary.txt
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "kernel: $(uname -r); cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/\s\+/ /g')"
    echo "memory: $(free -g | awk '/Mem:/{print $2 " GiB"}'); work disk: $(df -T "$WORK_DIR" | awk 'NR==2{print $1, $2}')"
    echo "fio: $(fio --version); iogauge: $($IOG --version); pairs: $PAIRS; seconds per run: $SECS"
} | tee -a "$SUMMARY"

# json_field FILE TOOL DIR FIELD: iops or mean completion latency (ns) from a result file.
json_field() {
    python3 - "$@" <<'PY'
import json, sys
path, tool, direction, field = sys.argv[1:5]
d = json.load(open(path))
if tool == "fio":
    j = d["jobs"][0][direction]
    v = j["iops"] if field == "iops" else j["clat_ns"]["mean"]
else:
    j = d["total"][direction]
    v = j["iops"] if field == "iops" else j["latency"]["mean_ns"]
print(f"{v:.1f}")
PY
}

# pair NAME DIR FILE "FIO ARGS" "IOGAUGE ARGS"
pairs() {
    local name=$1 dir=$2 file=$3 fio_args=$4 iog_args=$5
    echo | tee -a "$SUMMARY"
    echo "## $name" | tee -a "$SUMMARY"
    echo "fio $fio_args" >>"$SUMMARY"
    echo "iogauge run $iog_args" >>"$SUMMARY"
    printf '%-5s %14s %14s %8s %14s %14s\n' pair fio_iops iogauge_iops ratio fio_clat_us iog_lat_us | tee -a "$SUMMARY"
    local ratios=()
    for i in $(seq 1 "$PAIRS"); do
        # shellcheck disable=SC2086
        fio --output-format=json --output="$OUT/$name-fio-$i.json" --filename="$file" $fio_args
        # shellcheck disable=SC2086
        $IOG run $iog_args --output json --output-file "$OUT/$name-iogauge-$i.json" "$file"
        local fi ii fl il
        fi=$(json_field "$OUT/$name-fio-$i.json" fio "$dir" iops)
        ii=$(json_field "$OUT/$name-iogauge-$i.json" iogauge "$dir" iops)
        fl=$(json_field "$OUT/$name-fio-$i.json" fio "$dir" lat)
        il=$(json_field "$OUT/$name-iogauge-$i.json" iogauge "$dir" lat)
        local r
        r=$(python3 -c "print(f'{$ii/$fi:.3f}')")
        ratios+=("$r")
        printf '%-5s %14s %14s %8s %14.2f %14.2f\n' "$i" "$fi" "$ii" "$r" "$(python3 -c "print($fl/1000)")" "$(python3 -c "print($il/1000)")" | tee -a "$SUMMARY"
    done
    echo "ratios iogauge/fio: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')" | tee -a "$SUMMARY"
}

for w in "${WORKLOADS[@]}"; do
    case $w in
    direct-qd32)
        # 4K random read, QD32, O_DIRECT, one thread, io_uring on both sides.
        f=$WORK_DIR/direct.dat
        [ -f "$f" ] || $IOG run -c 1G -d 0.1 -W 0 --keep --output json --output-file /dev/null "$f"
        pairs direct-qd32 read "$f" \
            "--name=direct-qd32 --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 32 -r -Su --engine io_uring -d $SECS -W 1"
        ;;
    shm-sync)
        # Buffered 4K random read from a file in /dev/shm, pread on both sides.
        f=/dev/shm/iogauge-bench.dat
        [ -f "$f" ] || $IOG run -c 1G -d 0.1 -W 0 --cache buffered --keep --output json --output-file /dev/null "$f"
        pairs shm-sync read "$f" \
            "--name=shm-sync --rw=randread --bs=4k --iodepth=1 --ioengine=psync --direct=0 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -r --cache buffered --engine sync -d $SECS -W 1"
        rm -f "$f"
        ;;
    memory)
        # Resident size against run length: 8 threads x QD32 on the work disk, short and 60 s.
        f=$WORK_DIR/direct.dat
        [ -f "$f" ] || $IOG run -c 1G -d 0.1 -W 0 --keep --output json --output-file /dev/null "$f"
        echo | tee -a "$SUMMARY"
        echo "## memory: 8 threads x QD32, 4K random read, O_DIRECT, io_uring" | tee -a "$SUMMARY"
        for secs in 5 60; do
            $IOG run -t 8 -o 32 -b 4k -r -Su -d "$secs" -W 0 --output json --output-file "$OUT/memory-$secs.json" "$f"
            python3 - "$OUT/memory-$secs.json" "$secs" <<'PY' | tee -a "$SUMMARY"
import json, sys
d = json.load(open(sys.argv[1]))
u = d["iogauge_usage"]
print(f"{sys.argv[2]:>3} s: max RSS {u['max_rss_bytes']/2**20:.1f} MiB, {len(d['time_series']['samples'])} samples, "
      f"{d['total']['all']['iops']:.0f} IOPS, iogauge CPU {(u['user_cpu_ns']+u['system_cpu_ns'])/1e9:.2f} s")
PY
        done
        ;;
    *) echo "unknown workload '$w' (direct-qd32, shm-sync, memory)" >&2; exit 2 ;;
    esac
done
echo "results in $OUT"
