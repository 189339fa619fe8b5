#!/usr/bin/env bash
# Count which of the inputs found in the wild fio accepts and which iogauge
# accepts, both asked to parse only.
#
#   tests/wild/probe.sh [IOGAUGE]     (default target/debug/iogauge of this checkout)
#
# Inputs: fio-jobs/NNN-*.fio (the other files there are only included by them),
# fio-lines.txt and diskspd-lines.txt. An input's "# env:" line is shell code
# (assignments, at most a mkdir) run first, exported, in a scratch directory of
# its own under /tmp; a command line is then word-split and expanded by bash as
# its shell would.
#
# Nothing here may run I/O: fio and iogauge fio always get --parse-only, and
# iogauge diskspd always gets -Rp (the line's own -R<format>, which only picks
# the report's format, is dropped so that nothing can displace -Rp). Several
# inputs name block devices (/dev/sdb...); never run them without these flags.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
IOGAUGE=$(realpath -- "${1:-$HERE/../../target/debug/iogauge}")
FIO=${FIO:-/usr/bin/fio}
export WILD_JOBS="$HERE/fio-jobs"
SCRATCH=$(mktemp -d /tmp/wild-probe.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
WILD_TIMEOUT=30

[ -x "$IOGAUGE" ] || { echo "probe.sh: no iogauge binary at $IOGAUGE" >&2; exit 2; }

# The verdict of one run: "accepted", or the first line of what it said.
verdict() { # rc output-file
    if [ "$1" -eq 0 ]; then echo accepted; return; fi
    local _wp_line
    _wp_line=$(grep -v '^[[:space:]]*$' -- "$2" | head -n 1)
    [ "$1" -eq 124 ] && _wp_line="timed out after ${WILD_TIMEOUT}s"
    echo "${_wp_line:-exit status $1, no message}"
}

# Run "$@" in DIR with ENV applied; print the verdict.
run_in() { # dir env cmd...
    local _wp_dir=$1 _wp_env=$2; shift 2
    (
        cd "$_wp_dir" || exit 99
        set -a; eval "$_wp_env" >/dev/null 2>&1; set +a
        timeout "$WILD_TIMEOUT" "$@" >"$_wp_dir/.out" 2>"$_wp_dir/.err" </dev/null
        _wp_rc=$?
        # errors come on stderr; fall back to stdout when stderr is empty
        if [ -s "$_wp_dir/.err" ]; then verdict "$_wp_rc" "$_wp_dir/.err"; else verdict "$_wp_rc" "$_wp_dir/.out"; fi
    )
}

ROWS="$SCRATCH/rows"   # kind<TAB>input<TAB>fio verdict<TAB>iogauge verdict
: >"$ROWS"
n=0

probe_job() { # file
    local f=$1 env dir
    env=$(sed -n '2s/^# env: //p' "$f")
    n=$((n + 1)); dir="$SCRATCH/$n"; mkdir -p "$dir/fio" "$dir/iog"
    local fv iv
    fv=$(run_in "$dir/fio" "$env" "$FIO" --parse-only "$f")
    iv=$(run_in "$dir/iog" "$env" "$IOGAUGE" fio --parse-only "$f")
    printf 'job\t%s\t%s\t%s\n' "fio-jobs/$(basename "$f")" "$fv" "$iv" >>"$ROWS"
}

# Expand a command line (after its program name) into one argument per line,
# NUL-separated, in the scratch directory with the entry's env.
expand_args() { # dir env rest
    (
        cd "$1" || exit 99
        set -a; eval "$2" >/dev/null 2>&1; set +a
        eval "set -- $3"
        printf '%s\0' "$@"
    )
}

probe_line() { # kind lineno env cmdline
    local kind=$1 at=$2 env=$3 cmd=$4 dir rest fv iv
    n=$((n + 1)); dir="$SCRATCH/$n"; mkdir -p "$dir/fio" "$dir/iog"
    rest=${cmd#* }
    local -a args=()
    mapfile -d '' args < <(expand_args "$dir/iog" "$env" "$rest")
    if [ "$kind" = fio ]; then
        fv=$(run_in "$dir/fio" "$env" "$FIO" --parse-only "${args[@]}")
        iv=$(run_in "$dir/iog" "$env" "$IOGAUGE" fio --parse-only "${args[@]}")
        printf 'line\t%s\t%s\t%s\n' "fio-lines.txt:$at" "$fv" "$iv" >>"$ROWS"
    else
        local -a kept=()
        local a
        for a in "${args[@]}"; do
            case "$a" in -R|-Rtext|-Rxml|-Rjson) ;; *) kept+=("$a") ;; esac
        done
        iv=$(run_in "$dir/iog" "$env" "$IOGAUGE" diskspd -Rp "${kept[@]}")
        printf 'diskspd\t%s\t%s\t%s\n' "diskspd-lines.txt:$at" "n/a" "$iv" >>"$ROWS"
    fi
}

# Entries: "# source:" line, optional "# env:" line, then the command line.
probe_lines() { # kind file
    local kind=$1 file=$2 lineno=0 env="" line
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        case "$line" in
            "# source:"*) env="" ;;
            "# env: "*) env=${line#\# env: } ;;
            "fio "*|"diskspd "*) probe_line "$kind" "$lineno" "$env" "$line"; env="" ;;
        esac
    done <"$file"
}

for f in "$HERE"/fio-jobs/[0-9][0-9][0-9]-*.fio; do probe_job "$f"; done
probe_lines fio "$HERE/fio-lines.txt"
probe_lines diskspd "$HERE/diskspd-lines.txt"

echo "fio: $("$FIO" --version)   iogauge: $IOGAUGE ($("$IOGAUGE" --version 2>&1 | head -n 1), built $(date -r "$IOGAUGE" '+%Y-%m-%d %H:%M'))"
echo
printf '%-8s | %-34s | %-60s | %s\n' kind input "fio --parse-only" "iogauge --parse-only"
awk -F'\t' '{ printf "%-8s | %-34s | %-60s | %s\n", $1, $2, substr($3, 1, 60), $4 }' "$ROWS"

echo
echo "Counts (fio's verdict does not apply to DiskSpd lines):"
for kind in job line diskspd; do
    awk -F'\t' -v k="$kind" '$1 == k { t++; if ($3 == "accepted") f++; if ($4 == "accepted") i++ }
        END { printf "  %-8s inputs %3d   accepted by fio %3s   accepted by iogauge %3d\n",
              k, t, (k == "diskspd" ? "n/a" : f + 0), i + 0 }' "$ROWS"
done
awk -F'\t' '$1 != "diskspd" && $3 == "accepted" && $4 != "accepted" { b++ }
    END { printf "  fio inputs fio accepts but iogauge refuses: %d\n", b + 0 }' "$ROWS"

# A reason is the refusal with what names this one input taken out: the
# file:line prefix, quoted values (except an unsupported option's or engine's
# name) and numbers.
echo
echo "iogauge's refusals grouped by reason (count, reason, one example input):"
awk -F'\t' '$4 != "accepted" {
        r = $4
        sub(/^iogauge: error: /, "", r)
        gsub(/\/[^ :]*\.fio:[0-9]+: /, "", r)
        gsub(/command-line argument [0-9]+: /, "", r)
        # an unsupported option or engine is its own reason: keep its name
        if (r !~ /^option '\''/ && r !~ /^ioengine: /) gsub(/'\''[^'\'']*'\''/, "'\''…'\''", r)
        if (r !~ /^option '\''/ && r !~ /^ioengine: /) gsub(/[0-9]+/, "N", r)
        count[r]++; if (!(r in ex)) ex[r] = $2 " => " $4
    }
    END { for (r in count) printf "%5d  %s\n         e.g. %s\n", count[r], r, ex[r] }' "$ROWS" |
    awk 'NR % 2 == 1 { key = $0 } NR % 2 == 0 { print key "\t" $0 }' | sort -t$'\t' -k1,1nr |
    tr '\t' '\n'
