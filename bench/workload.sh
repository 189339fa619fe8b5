#!/usr/bin/env bash
# iogauge's workloads against the tools users time by hand, as whole commands, alternating
# (iogauge first in odd rounds, the tool first in even ones), caches dropped before each
# command and every command followed by `sync` inside its timing (cp's time would otherwise
# end with its data still in memory while iogauge's ends after its syncfs). Prints each
# round's ratio (the tool's time over iogauge's: above 1, iogauge was faster) and the median.
#
#   bench/workload.sh [ROUNDS]
#
# The goals (issue 21): copy --threads 4 >= 1.0x `cp -r` on tmpfs and on the work disk;
# archive tar.zst >= 1.0x `tar --zstd` (zstd at the same level and threads); scan >= 1.0x
# `find -printf '%s'`. Env: FILES (20000), SIZES (lognormal:32K:1.0), WORK (a folder on the
# work disk; default bench/work), SHM (a tmpfs folder; default /dev/shm/iogauge-bench), ONLY
# (a space-separated subset of: copy-tmpfs copy-disk archive scan). Needs root to drop caches
# (without it, runs warm and says so).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
FILES=${FILES:-20000}
SIZES=${SIZES:-lognormal:32K:1.0}
WORK=${WORK:-$PWD/bench/work}
SHM=${SHM:-/dev/shm/iogauge-bench}
ONLY=${ONLY:-copy-tmpfs copy-disk archive scan}
cargo build --release --quiet
IOG=$PWD/target/release/iogauge
for t in cp tar zstd find; do command -v "$t" >/dev/null || { echo "$t is not installed" >&2; exit 1; }; done
mkdir -p bench/results "$WORK" "$SHM"
trap 'rm -rf "$WORK/ds" "$WORK/out" "$SHM/ds" "$SHM/out"' EXIT
out="bench/results/$(date +%F)-$(hostname)-workload.txt"
cold=yes
[ -w /proc/sys/vm/drop_caches ] || cold="no (not root: caches stay warm)"
echo "$(date -u +%FT%TZ) $(nproc) CPUs, $FILES files of $SIZES, caches dropped: $cold" | tee -a "$out"
drop() { sync; [ "$cold" = yes ] && echo 3 >/proc/sys/vm/drop_caches; true; }
secs() { date +%s.%N; }
# Time "$@" followed by sync, caches dropped first: seconds on stdout.
timed() {
    drop
    local a b
    a=$(secs)
    "$@" >/dev/null
    sync
    b=$(secs)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }'
}
ratio() { awk -v t="$1" -v i="$2" 'BEGIN { printf "%.2f\n", t / i }'; }
median() { sort -n | awk '{v[NR]=$1} END {m=int((NR+1)/2); print (NR%2 ? v[m] : (v[m]+v[m+1])/2)}'; }

# One comparison: NAME, the iogauge command, the tool command, a command run before each
# (removing the previous output).
compare() {
    local name=$1 iog=$2 tool=$3 clean=$4 ratios=()
    for i in $(seq "$ROUNDS"); do
        local ti tt
        eval "$clean"
        if (( i % 2 )); then
            ti=$(timed bash -c "$iog"); eval "$clean"; tt=$(timed bash -c "$tool")
        else
            tt=$(timed bash -c "$tool"); eval "$clean"; ti=$(timed bash -c "$iog")
        fi
        local r
        r=$(ratio "$tt" "$ti")
        ratios+=("$r")
        printf '%s round %d: iogauge %.2f s, tool %.2f s: ratio %s\n' "$name" "$i" "$ti" "$tt" "$r"
    done
    printf '%s: median ratio %s (tool time / iogauge time; goal >= 1.0)\n' "$name" \
        "$(printf '%s\n' "${ratios[@]}" | median)"
}

# iogauge as a user would run it for a timing: no verification, no save, caches left to us,
# and what it made kept (as cp keeps its copy: removing it is the next command's work).
W="$IOG workload --no-verify --no-drop-caches --no-save --keep -q"
for case in $ONLY; do
    case $case in
    copy-tmpfs | copy-disk)
        base=$SHM
        [ "$case" = copy-disk ] && base=$WORK
        rm -rf "$base/ds" "$base/out"
        "$IOG" dataset create "$base/ds" --files "$FILES" --size-dist "$SIZES" >/dev/null
        compare "$case (iogauge --threads 4 vs cp -r, $(stat -f -c %T "$base"))" \
            "$W copy --source $base/ds --target $base/out --threads 4" \
            "cp -r $base/ds $base/out" \
            "rm -rf $base/out"
        rm -rf "$base/ds"
        ;;
    archive)
        rm -rf "$WORK/ds" "$WORK/out"
        "$IOG" dataset create "$WORK/ds" --files "$FILES" --size-dist "$SIZES" >/dev/null
        mkdir -p "$WORK/out"
        compare "archive (tar.zst level 3, 4 threads, vs tar -I 'zstd -3 -T4')" \
            "$W archive --source $WORK/ds --target $WORK/out/i --format tar.zst --level 3 --threads 4" \
            "tar -C $WORK/ds -I 'zstd -3 -T4' -cf $WORK/out/t.tar.zst ." \
            "rm -rf $WORK/out/i $WORK/out/t.tar.zst"
        ;;
    scan)
        [ -d "$WORK/ds" ] || "$IOG" dataset create "$WORK/ds" --files "$FILES" --size-dist "$SIZES" >/dev/null
        compare "scan (iogauge, its default threads, vs find -printf '%s')" \
            "$W scan --source $WORK/ds" \
            "find $WORK/ds -printf '%s\n'" \
            "true"
        ;;
    *) echo "unknown case '$case' in ONLY" >&2; exit 2 ;;
    esac
done 2>&1 | tee -a "$out"
