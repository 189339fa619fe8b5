#!/usr/bin/env bash
# Run the same workload with fio and iogauge, alternating (fio, iogauge, fio, iogauge, ...),
# and print the iogauge/fio ratio of each pair. Machines here are shared and noisy: read the
# ratios within one run, not the absolute figures.
#
#   bench/compare_fio.sh [WORKLOAD...]
#
# Workloads (default: all): direct-qd32 direct-qd1 shm-sync shm-uring cached-uring null-qd1
# null-scaling memory jobfile-direct jobfile-null jobfile-files jobfile-filecreate.
# The jobfile-* workloads give one fio job file to fio and to `iogauge fio` (its fio-shaped
# JSON is read the same way as fio's).
# Where a workload compares latency, iogauge runs in latency mode (-L) and fio with its default
# completion-latency recording; pure IOPS comparisons run iogauge in its IOPS mode, as a user
# measuring IOPS would (the summary says which).
#
# Env: PAIRS (default 3), SECS per run (default 10), WORK_DIR (default bench/work, on the
# disk holding the repository; O_DIRECT must work there), IOG (an iogauge binary; default:
# this tree's, built with --release).
# Everything goes to bench/results/<date>-<host>/: raw JSON of every run and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
SECS=${SECS:-10}
WORK_DIR=${WORK_DIR:-bench/work}
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(direct-qd32 direct-qd1 shm-sync shm-uring cached-uring null-qd1 null-scaling memory jobfile-direct jobfile-null jobfile-files jobfile-filecreate)

bash scripts/install-test-tools.sh
command -v fio >/dev/null || { echo "compare_fio: fio is needed" >&2; exit 1; }
# IOG=path/to/iogauge compares another build (a renovation's before and after, say).
if [ -z "${IOG:-}" ]; then
    cargo build --release -q
    IOG=$PWD/target/release/iogauge
fi

OUT=bench/results/$(date +%Y-%m-%d)-$(hostname)
# Never overwrite an earlier run of the same day: number the later ones.
n=2
while [ -e "$OUT" ]; do OUT=bench/results/$(date +%Y-%m-%d)-$(hostname)-$n; n=$((n + 1)); done
mkdir -p "$OUT" "$WORK_DIR"
SUMMARY=$OUT/summary.txt
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "kernel: $(uname -r); cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/\s\+/ /g')"
    echo "memory: $(free -g | awk '/Mem:/{print $2 " GiB"}'); work disk: $(df -T "$WORK_DIR" | awk 'NR==2{print $1, $2}')"
    echo "fio: $(fio --version); iogauge: $($IOG --version); pairs: $PAIRS; seconds per run: $SECS"
} | tee -a "$SUMMARY"

# ensure_file PATH SIZE [iogauge flags]: create the work file once, with iogauge's
# incompressible data, and keep it between runs.
ensure_file() {
    local f=$1 size=$2
    shift 2
    [ -f "$f" ] || $IOG run -c "$size" -d 0.1 -W 0 --keep "$@" --output json --output-file /dev/null "$f"
}

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
    v = j["iops"] if field == "iops" else (j["latency"] or {}).get("mean_ns")
print("nan" if v is None else f"{v:.1f}")
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
        printf '%-5s %14s %14s %8s %14s %14s\n' "$i" "$fi" "$ii" "$r" "$(python3 -c "print(f'{$fl/1000:.2f}')")" "$(python3 -c "print(f'{float(\"$il\")/1000:.2f}')")" | tee -a "$SUMMARY"
    done
    echo "ratios iogauge/fio: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')" | tee -a "$SUMMARY"
}

# jobfile_pairs NAME JOBFILE [RESET]: the same job file through fio and through `iogauge fio`;
# RESET, a shell command, runs before each of the two (to clear what a run leaves).
jobfile_pairs() {
    local name=$1 job=$2 reset=${3:-true}
    echo | tee -a "$SUMMARY"
    echo "## $name: one job file, fio and iogauge fio" | tee -a "$SUMMARY"
    sed 's/^/    /' "$job" >>"$SUMMARY"
    printf '%-5s %14s %14s %8s %14s %14s\n' pair fio_iops iogauge_iops ratio fio_clat_us iog_clat_us | tee -a "$SUMMARY"
    local ratios=()
    for i in $(seq 1 "$PAIRS"); do
        eval "$reset"
        fio --output-format=json --output="$OUT/$name-fio-$i.json" "$job"
        eval "$reset"
        $IOG fio "$job" --output-format=json --output="$OUT/$name-iogauge-$i.json" --no-save
        local fi ii fl il r
        fi=$(json_field "$OUT/$name-fio-$i.json" fio read iops)
        ii=$(json_field "$OUT/$name-iogauge-$i.json" fio read iops)
        fl=$(json_field "$OUT/$name-fio-$i.json" fio read lat)
        il=$(json_field "$OUT/$name-iogauge-$i.json" fio read lat)
        r=$(python3 -c "print(f'{$ii/$fi:.3f}')")
        ratios+=("$r")
        printf '%-5s %14s %14s %8s %14s %14s\n' "$i" "$fi" "$ii" "$r" "$(python3 -c "print(f'{$fl/1000:.2f}')")" "$(python3 -c "print(f'{$il/1000:.2f}')")" | tee -a "$SUMMARY"
    done
    echo "ratios iogauge/fio: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')" | tee -a "$SUMMARY"
}

for w in "${WORKLOADS[@]}"; do
    case $w in
    direct-qd32)
        # 4K random read, QD32, O_DIRECT, one thread, io_uring on both sides.
        f=$WORK_DIR/direct.dat
        ensure_file "$f" 1G
        pairs direct-qd32 read "$f" \
            "--name=direct-qd32 --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=1 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 32 -r -Su -L --engine io_uring -d $SECS -W 1"
        ;;
    direct-qd1)
        # The same at queue depth 1: latency-bound, so per-I/O overhead shows directly.
        f=$WORK_DIR/direct.dat
        ensure_file "$f" 1G
        pairs direct-qd1 read "$f" \
            "--name=direct-qd1 --rw=randread --bs=4k --iodepth=1 --ioengine=io_uring --direct=1 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 1 -r -Su -L --engine io_uring -d $SECS -W 1"
        ;;
    shm-uring)
        # Buffered 4K random read from /dev/shm through io_uring at QD32: CPU-bound.
        f=/dev/shm/iogauge-bench.dat
        ensure_file "$f" 1G --cache buffered
        pairs shm-uring read "$f" \
            "--name=shm-uring --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=0 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 32 -r --cache buffered --engine io_uring -d $SECS -W 1"
        rm -f "$f"
        ;;
    cached-uring)
        # Buffered 4K random read through io_uring at QD32 from a file on the work disk held
        # whole in the page cache: reads complete inside the submission call, so each tool's
        # own cost per I/O shows. fio runs with --invalidate=0: by default it drops the file from
        # the cache before each job. (On tmpfs this kernel hands buffered io_uring reads to io-wq
        # worker threads, which then bound both tools: see shm-uring.)
        f=$WORK_DIR/direct.dat
        ensure_file "$f" 1G
        cat "$f" >/dev/null
        pairs cached-uring read "$f" \
            "--name=cached-uring --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --direct=0 --invalidate=0 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 32 -r --cache buffered --engine io_uring -d $SECS -W 1"
        ;;
    null-qd1)
        # No storage at all: what is left is each tool's own cost per I/O, latency recorded on
        # both sides (fio records completion latency by default).
        f=$WORK_DIR/null.dat
        ensure_file "$f" 1M --cache buffered
        pairs null-qd1 read "$f" \
            "--name=null-qd1 --rw=randread --bs=4k --iodepth=1 --ioengine=null --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -o 1 -r -L --cache buffered --engine null -d $SECS -W 1"
        ;;
    null-scaling)
        # iogauge alone: 2 threads against 1 on the null engine (QD1, latency mode).
        f=$WORK_DIR/null.dat
        ensure_file "$f" 1M --cache buffered
        echo | tee -a "$SUMMARY"
        echo "## null-scaling: iogauge, null engine, QD1, -L: 2 threads against 1" | tee -a "$SUMMARY"
        for i in $(seq 1 "$PAIRS"); do
            for t in 1 2; do
                $IOG run -t $t -b 4k -o 1 -r -L --cache buffered --engine null -d "$SECS" -W 1 --output json --output-file "$OUT/null-scaling-t$t-$i.json" "$f"
            done
            python3 - "$OUT/null-scaling-t1-$i.json" "$OUT/null-scaling-t2-$i.json" "$i" <<'PY' | tee -a "$SUMMARY"
import json, sys
one, two = (json.load(open(p))["total"]["all"]["iops"] for p in sys.argv[1:3])
print(f"{sys.argv[3]:<5} 1 thread {one:14.0f}  2 threads {two:14.0f}  ratio {two/one:.3f}")
PY
        done
        ;;
    shm-sync)
        # Buffered 4K random read from a file in /dev/shm, pread on both sides.
        f=/dev/shm/iogauge-bench.dat
        ensure_file "$f" 1G --cache buffered
        pairs shm-sync read "$f" \
            "--name=shm-sync --rw=randread --bs=4k --iodepth=1 --ioengine=psync --direct=0 --norandommap --size=1G --time_based --runtime=$SECS --ramp_time=1" \
            "-b 4k -r --cache buffered --engine sync -d $SECS -W 1"
        rm -f "$f"
        ;;
    memory)
        # Resident size against run length: 8 threads x QD32 on the work disk, short and 60 s.
        f=$WORK_DIR/direct.dat
        ensure_file "$f" 1G
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
    jobfile-direct)
        # A user's job file: 4K random read, libaio QD32 (io_uring in iogauge), O_DIRECT.
        f=$WORK_DIR/direct.dat
        ensure_file "$f" 1G
        printf '[global]\nfilename=%s\nrw=randread\nbs=4k\ndirect=1\nnorandommap\ntime_based\nruntime=%s\nramp_time=1\n[randread]\nioengine=libaio\niodepth=32\n' "$PWD/$f" "$SECS" >"$OUT/jobfile-direct.fio"
        jobfile_pairs jobfile-direct "$OUT/jobfile-direct.fio"
        ;;
    jobfile-null)
        # No storage: each tool's own cost per I/O through the fio front end, latency timed on
        # both sides, QD1.
        f=$WORK_DIR/null.dat
        ensure_file "$f" 1M --cache buffered
        printf '[null]\nioengine=null\nfilename=%s\nsize=1m\nrw=randread\nbs=4k\nnorandommap\ntime_based\nruntime=%s\nramp_time=1\n' "$PWD/$f" "$SECS" >"$OUT/jobfile-null.fio"
        jobfile_pairs jobfile-null "$OUT/jobfile-null.fio"
        ;;
    jobfile-files)
        # One job over four files in /dev/shm (fio's filename=a:b:c:d, turns by roundrobin),
        # buffered 4K random reads with pread: the cost of choosing a file per I/O.
        list=
        for i in 0 1 2 3; do
            f=/dev/shm/iogauge-bench-$i.dat
            ensure_file "$f" 256M --cache buffered
            list=$list${list:+:}$f
        done
        printf '[files]\nfilename=%s\nioengine=psync\nrw=randread\nbs=4k\nnorandommap\ntime_based\nruntime=%s\nramp_time=1\n' "$list" "$SECS" >"$OUT/jobfile-files.fio"
        jobfile_pairs jobfile-files "$OUT/jobfile-files.fio"
        rm -f /dev/shm/iogauge-bench-?.dat
        ;;
    jobfile-filecreate)
        # fio's filecreate engine as its example job runs it: 4000 new files in a folder on
        # /dev/shm, one create each, timed. tmpfs creates in microseconds, so each tool's
        # own cost per file shows; iogauge times open+close, fio the open alone.
        d=/dev/shm/iogauge-bench-fc
        printf '[fc]\ndirectory=%s\nioengine=filecreate\nnrfiles=4000\nfilesize=4k\ncreate_on_open=1\nopenfiles=1\n' "$d" >"$OUT/jobfile-filecreate.fio"
        jobfile_pairs jobfile-filecreate "$OUT/jobfile-filecreate.fio" "rm -rf $d && mkdir $d"
        rm -rf "$d"
        ;;
    *) echo "unknown workload '$w' (direct-qd32 direct-qd1 shm-sync shm-uring cached-uring null-qd1 null-scaling memory jobfile-direct jobfile-null jobfile-files jobfile-filecreate)" >&2; exit 2 ;;
    esac
done
echo "results in $OUT"
