#!/usr/bin/env bash
# iogauge ior / iogauge mdtest side by side with the real IOR and mdtest (built from
# github.com/hpc/ior with OpenMPI's mpicc), under mpirun, alternating, PAIRS times.
# Prints each tool's command, the bytes or items it says it moved, and the rates; the ratio
# iogauge/tool per pair and their median.
#
#   IOR_BIN=/tmp/ior-inst/bin IOG=target/release/iogauge DIR=/var/tmp/cmp NP=4 PAIRS=3 \
#     bash bench/compare_ior_mdtest.sh
set -euo pipefail
IOR_BIN=${IOR_BIN:?the folder holding the real ior and mdtest}
IOG=${IOG:-target/release/iogauge}
DIR=${DIR:-/var/tmp/iogauge-cmp}
NP=${NP:-4}
PAIRS=${PAIRS:-3}
IOR_LINE=${IOR_LINE:--a POSIX -t 1m -b 16m -s 4 -F -C -e}
MD_LINE=${MD_LINE:--n 2000 -u -F}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np "$NP")

mkdir -p "$DIR"
echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cpus, $(awk '/MemTotal/ {printf "%d GiB", $2/1048576}' /proc/meminfo)"
echo "# work folder $DIR: $(df -T "$DIR" 2>/dev/null | awk 'NR==2 {print $1, $2}' || true); $("$IOG" --version); IOR $(git -C "${IOR_SRC:-.}" describe --always 2>/dev/null || echo "from $IOR_BIN")"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# Max(MiB) of `write` or `read` in "Summary of all tests:" (IOR prints its "Max Write:"
# lines only with -v).
max_of() { awk -v what="$1" '/^Summary of all tests/ {s = 1} s && $1 == what {print $2; exit}'; }

echo
echo "## IOR: ior $IOR_LINE -o $DIR/ior/testFile"
echo "${MPIRUN[*]} $IOR_BIN/ior $IOR_LINE -o $DIR/ior/testFile"
echo "${MPIRUN[*]} $IOG ior $IOR_LINE -o $DIR/ior/testFile"
printf "%-5s %12s %12s %12s %12s %8s %8s\n" pair ior_write iog_write ior_read iog_read w_ratio r_ratio
wr=(); rr=()
for p in $(seq 1 "$PAIRS"); do
    rm -rf "$DIR/ior" && mkdir -p "$DIR/ior"
    real=$("${MPIRUN[@]}" "$IOR_BIN/ior" $IOR_LINE -o "$DIR/ior/testFile")
    rm -rf "$DIR/ior" && mkdir -p "$DIR/ior"
    ours=$("${MPIRUN[@]}" "$IOG" ior $IOR_LINE -o "$DIR/ior/testFile" --quiet)
    if [ "$p" = 1 ]; then
        echo "ior:     $(grep -m1 'aggregate filesize' <<<"$real")"
        echo "iogauge: $(grep -m1 'aggregate filesize' <<<"$ours")"
    fi
    a=$(max_of write <<<"$real"); b=$(max_of write <<<"$ours")
    c=$(max_of read <<<"$real"); d=$(max_of read <<<"$ours")
    w=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b/a}')
    r=$(awk -v c="$c" -v d="$d" 'BEGIN {printf "%.3f", d/c}')
    wr+=("$w"); rr+=("$r")
    printf "%-5s %12s %12s %12s %12s %8s %8s\n" "$p" "$a" "$b" "$c" "$d" "$w" "$r"
done
echo "median iogauge/ior (MiB/s): write $(printf '%s\n' "${wr[@]}" | median), read $(printf '%s\n' "${rr[@]}" | median)"

echo
echo "## mdtest: mdtest $MD_LINE -d $DIR/md"
echo "${MPIRUN[*]} $IOR_BIN/mdtest $MD_LINE -d $DIR/md"
echo "${MPIRUN[*]} $IOG mdtest $MD_LINE -d $DIR/md"
rows="File creation|File stat|File read|File removal|Tree creation|Tree removal"
for p in $(seq 1 "$PAIRS"); do
    rm -rf "$DIR/md"
    real=$("${MPIRUN[@]}" "$IOR_BIN/mdtest" $MD_LINE -d "$DIR/md")
    rm -rf "$DIR/md"
    ours=$("${MPIRUN[@]}" "$IOG" mdtest $MD_LINE -d "$DIR/md")
    if [ "$p" = 1 ]; then
        echo "mdtest:  $(grep -m1 ' tasks, ' <<<"$real")"
        echo "iogauge: $(grep -m1 ' tasks, ' <<<"$ours")"
    fi
    echo "pair $p: operation, mdtest max ops/s, iogauge max ops/s, ratio"
    grep -E "^ +($rows) " <<<"$real" | while read -r line; do
        op=$(awk '{print $1, $2}' <<<"$line")
        a=$(awk '{print $3}' <<<"$line")
        b=$(grep -E "^ +$op " <<<"$ours" | awk '{print $3}')
        printf "  %-14s %14s %14s %8s\n" "$op" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {if (a > 0) printf "%.3f", b/a; else print "-"}')"
    done
done
rm -rf "$DIR/ior" "$DIR/md"
