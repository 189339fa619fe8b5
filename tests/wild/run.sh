#!/usr/bin/env bash
# Run the inputs found in the wild that are marked safe to run, once with fio and once with
# iogauge fio, and compare what each did: the number of jobs, the groups, the directions each
# job did I/O in and, for jobs bound by size, the bytes and I/Os per direction.
#
#   tests/wild/run.sh [IOGAUGE]     (default target/debug/iogauge of this checkout)
#
# Only entries with a "# run:" line take part (fio-jobs/NNN-*.fio: in the header, after
# "# source:" and "# env:"; fio-lines.txt: after the "# env:" line). It is shell code like
# "# env:", run after it in the same scratch directory, and it exists to make the entry small
# and local: paths into the scratch directory ($PWD there), sizes of a few MiB, runtimes of 1 s.
# It is reviewed by hand, and this script does not trust it: before running anything it asks
# iogauge for its plan (--parse-only) in each tool's scratch directory and refuses the entry
# when any argument names /dev/, when any target lies outside that directory, when the
# targets' sizes or the bytes to move pass 64 MiB, or when a job runs for longer than 2 s; and,
# not to rest on iogauge's reading alone, when a filename= or directory= in the arguments or in
# fio's own --showcmd of a job file lies outside it.
#
# What is compared, per entry: the number of jobs in each report, the set of groupids, per job
# the directions that moved bytes and, where every job of the entry is bound by size (not
# time_based), its bytes and I/Os per direction. Reports are compared as sorted lists, since
# the two tools may list a job's clones in another order. A difference passes only when
# run-known.txt lists the entry with its reason ("known").
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
IOGAUGE=$(realpath -- "${1:-$HERE/../../target/debug/iogauge}")
FIO=${FIO:-/usr/bin/fio}
export WILD_JOBS="$HERE/fio-jobs"
SCRATCH=$(mktemp -d /tmp/wild-run.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
WILD_TIMEOUT=30
MAX_BYTES=$((64 << 20))
MAX_NS=2000000000

[ -x "$IOGAUGE" ] || { echo "run.sh: no iogauge binary at $IOGAUGE" >&2; exit 2; }

# Known differences, each with its reason: "input<TAB>reason", one a line.
KNOWN="$HERE/run-known.txt"

ROWS="$SCRATCH/rows" # input<TAB>fio summary<TAB>iogauge summary<TAB>verdict<TAB>detail
: >"$ROWS"
n=0

# Expand arguments (words of a command line) into one a NUL-terminated record, in DIR with
# the entry's env and run code applied, as the entry's shell would.
expand_args() { # dir code words
    (
        cd "$1" || exit 99
        set -a; eval "$2" >/dev/null 2>&1; set +a
        eval "set -- $3"
        printf '%s\0' "$@"
    )
}

# Run "$@" in DIR with CODE applied, stdout and stderr to DIR/.out and DIR/.err; exit status.
run_in() { # dir code cmd...
    local _wr_dir=$1 _wr_code=$2; shift 2
    (
        cd "$_wr_dir" || exit 99
        set -a; eval "$_wr_code" >/dev/null 2>&1; set +a
        timeout "$WILD_TIMEOUT" "$@" >"$_wr_dir/.out" 2>"$_wr_dir/.err" </dev/null
    )
}

# Why the plan iogauge makes in DIR is not safe to run there, or nothing when it is.
unsafe_plan() { # dir code args...
    local dir=$1 code=$2 a; shift 2
    for a in "$@"; do
        case "$a" in *"/dev/"*) echo "an argument names /dev/: $a"; return ;; esac
    done
    if ! run_in "$dir" "$code" "$IOGAUGE" fio --parse-only "$@"; then
        echo "iogauge --parse-only refused: $(head -n 1 "$dir/.err")"; return
    fi
    mv "$dir/.out" "$dir/.plan.json"
    local p
    # resolve every target as the kernel would, symbolic links included
    while IFS= read -r p; do
        p=$(realpath -m -- "$p")
        case "$p" in "$dir"/*) ;; *) echo "target outside the scratch directory: $p"; return ;; esac
    done < <(jq -r '.jobs[].job.targets[].path' "$dir/.plan.json")
    jq -r --argjson maxb "$MAX_BYTES" --argjson maxns "$MAX_NS" '
        [.jobs[] | select(.job.targets == []) | .name] as $bare
        | ([.jobs[] | .clones as $c | .job.targets[].create_size * $c] | add // 0) as $sizes
        | [.jobs[] | .job.stop | select(.kind == "total_bytes") | .bytes] as $bytes
        | [.jobs[] | select(.job.stop.kind == "duration")
                   | .job.stop.ns + .job.warmup_ns] as $times
        | if $bare != [] then "jobs with no target: \($bare)"
          elif $sizes > $maxb then "targets of \($sizes) bytes in all"
          elif ($bytes | map(select(. > $maxb)) != []) then "a job moves more than \($maxb) bytes"
          elif ($times | map(select(. > $maxns)) != []) then "a job runs longer than \($maxns) ns"
          else empty end' "$dir/.plan.json"
}

# Why fio's own reading of the entry might reach outside DIR, or nothing: every filename=,
# directory=, filename_format= and opendir= in the arguments and, for a job file, in what
# fio --showcmd makes of it (its ${VARS} expanded) must be relative without "..", or lie in DIR.
unsafe_for_fio() { # dir code args...
    local dir=$1 code=$2 a; shift 2
    local -a words=("$@")
    for a in "$@"; do
        case "$a" in
            *.fio)
                run_in "$dir" "$code" "$FIO" --showcmd "$a" || { echo "fio --showcmd $a failed"; return; }
                local -a shown=()
                read -r -a shown <"$dir/.out"
                words+=("${shown[@]}") ;;
        esac
    done
    local prev="" w v part
    for w in "${words[@]}"; do
        v=""
        case "$w" in
            -*filename=*|-*directory=*|-*filename_format=*|-*opendir=*) v=${w#*=} ;;
        esac
        case "$prev" in
            -filename|--filename|-directory|--directory|-filename_format|--filename_format|-opendir|--opendir) v=$w ;;
        esac
        prev=$w
        [ -n "$v" ] || continue
        IFS=: read -r -a parts <<<"$v"
        for part in "${parts[@]}"; do
            case "$part" in /*) part=$(realpath -m -- "$part") ;; esac
            case "$part" in
                *..*) echo "fio would follow '..' in $w"; return ;;
                "$dir"/*|"$dir") ;;
                /*) echo "fio would touch $part"; return ;;
            esac
        done
    done
}

# What a tool did, from its fio-shaped JSON: one line of JSON with the job count, the groups and
# per job its name, group and directions, and (SIZED=1) bytes and I/Os per direction, sorted.
summary() { # json-file sized
    # fio writes its warnings ("fio: verification read phase will never start...") into the
    # --output file too, before the JSON
    sed -n '/^{/,$p' "$1" | jq -c --argjson sized "$2" '
        def dirs: [("read", "write", "trim") as $d | select(.[$d].io_bytes > 0) | $d[0:1]] | join("");
        {jobs: (.jobs | length), groups: ([.jobs[].groupid] | unique),
         each: ([.jobs[] | {name: .jobname, group: .groupid, dirs: dirs}
                 + if $sized == 1 then {bytes: [.read.io_bytes, .write.io_bytes, .trim.io_bytes],
                                        ios: [.read.total_ios, .write.total_ios, .trim.total_ios]}
                   else {} end] | sort)}'
}

# The table's short form of a summary: jobs/groups/directions.
short() { # summary-json
    jq -r '"\(.jobs)/\(.groups | map(tostring) | join(","))/\([.each[].dirs] | unique | join(","))"' <<<"$1"
}

# Run one entry with both tools, each in a scratch directory of its own, and add its row.
# WORDS are expanded in each directory, so that $PWD in them names that directory.
run_entry() { # input code words
    local input=$1 code=$2 words=$3
    n=$((n + 1))
    local dir="$SCRATCH/$n" t why
    local -a fargs=() iargs=()
    mkdir -p "$dir/fio" "$dir/iog"
    mapfile -d '' fargs < <(expand_args "$dir/fio" "$code" "$words")
    mapfile -d '' iargs < <(expand_args "$dir/iog" "$code" "$words")
    why=$(unsafe_plan "$dir/fio" "$code" "${fargs[@]}")
    [ -n "$why" ] || why=$(unsafe_plan "$dir/iog" "$code" "${iargs[@]}")
    [ -n "$why" ] || why=$(unsafe_for_fio "$dir/fio" "$code" "${fargs[@]}")
    if [ -n "$why" ]; then
        printf '%s\t-\t-\tnot run\t%s\n' "$input" "$why" >>"$ROWS"
        return
    fi
    # a job bound by time does as much as the machine allows: compare no bytes
    local sized
    sized=$(jq '[.jobs[].job.stop.kind] | if all(. == "total_bytes") then 1 else 0 end' \
        "$dir/iog/.plan.json")
    # the last --output-format and --output win, in fio and in iogauge fio, over the entry's own
    run_in "$dir/fio" "$code" "$FIO" "${fargs[@]}" --output-format=json --output="$dir/fio.json" ||
        { printf '%s\t-\t-\tfailed\tfio: %s\n' "$input" "$(head -n 1 "$dir/fio/.err")" >>"$ROWS"; return; }
    run_in "$dir/iog" "$code" "$IOGAUGE" fio "${iargs[@]}" --no-save --output-format=json \
        --output="$dir/iog.json" ||
        { printf '%s\t-\t-\tfailed\tiogauge: %s\n' "$input" "$(head -n 1 "$dir/iog/.err")" >>"$ROWS"; return; }
    compare "$input" "$dir" "$sized"
}

# Compare the two reports of an entry and add its row.
compare() { # input dir sized
    local input=$1 dir=$2 sized=$3 fs is verdict detail=""
    fs=$(summary "$dir/fio.json" "$sized") || fs='{}'
    is=$(summary "$dir/iog.json" "$sized") || is='{}'
    if [ "$fs" = "$is" ]; then
        verdict=same
    else
        verdict=differs
        detail="fio $fs; iogauge $is"
        grep -q "^$input	" "$KNOWN" 2>/dev/null && verdict=known
    fi
    [ "$sized" = 1 ] && verdict="$verdict (bytes)"
    printf '%s\t%s\t%s\t%s\t%s\n' "$input" "$(short "$fs")" "$(short "$is")" "$verdict" "$detail" >>"$ROWS"
}

run_job() { # file
    local f=$1 env run
    run=$(sed -n '1,3s/^# run: //p' "$f")
    [ -n "$run" ] || return 0
    env=$(sed -n '2s/^# env: //p' "$f")
    run_entry "fio-jobs/$(basename "$f")" "$env
$run" "$(printf '%q' "$f")"
}

run_lines() { # file
    local file=$1 lineno=0 env="" run="" line
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        case "$line" in
            "# source:"*) env="" run="" ;;
            "# env: "*) env=${line#\# env: } ;;
            "# run: "*) run=${line#\# run: } ;;
            "fio "*)
                [ -z "$run" ] || run_entry "fio-lines.txt:$lineno" "$env
$run" "${line#* }"
                env="" run="" ;;
        esac
    done <"$file"
}

for f in "$HERE"/fio-jobs/[0-9][0-9][0-9]-*.fio; do run_job "$f"; done
run_lines "$HERE/fio-lines.txt"

echo "fio: $("$FIO" --version)   iogauge: $IOGAUGE"
echo
printf '%-34s | %-24s | %-24s | %s\n' input "fio jobs/groups/dirs" "iogauge jobs/groups/dirs" "same?"
awk -F'\t' '{ printf "%-34s | %-24s | %-24s | %s\n", $1, $2, $3, $4 }' "$ROWS"
echo
awk -F'\t' '$5 != "" { print "  " $1 ": " $5 }' "$ROWS"
echo
awk -F'\t' '{ t++ } $4 ~ /^same/ { s++ } $4 ~ /^known/ { k++ } $4 ~ /^differs/ { d++ }
    $4 ~ /^(not run|failed)/ { x++ }
    END { printf "Counts: marked %d   ran and agree %d   known differences %d   differ %d   not run or failed %d\n",
          t, s + 0, k + 0, d + 0, x + 0 }' "$ROWS"
