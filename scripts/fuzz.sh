#!/usr/bin/env bash
# Fuzz iogauge's readers of untrusted text: build the cargo-fuzz targets in fuzz/, run each
# for SECONDS (default 60) on a temporary copy of its committed corpus (the committed corpus
# does not grow), as many at once as there are CPUs, and print the executions per target.
# Fails if any target crashes, leaks past 2 GiB or hangs; the input that did it is kept in
# fuzz/artifacts/TARGET/ and printed in hex. Needs a nightly toolchain and cargo-fuzz
# (cargo install cargo-fuzz --locked).
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
targets=(numbers fio diskspd results iozone dataset)
# No sanitizer: the code under test is safe Rust; overflow checks and debug assertions are on.
fuzz=(cargo +nightly fuzz)
flags=(-s none)
"${fuzz[@]}" build "${flags[@]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fio's own example job files (Debian's fio-examples, which scripts/install-test-tools.sh
# installs) seed the fio target beside the committed corpus: they are fio's, not ours to commit.
fio_examples=/usr/share/doc/fio/examples

run_one() {
    local t=$1
    mkdir -p "$work/corpus/$t" "artifacts/$t"
    cp -R "corpus/$t/." "$work/corpus/$t/"
    if [ "$t" = fio ] && [ -d "$fio_examples" ]; then
        for f in "$fio_examples"/*.fio "$fio_examples"/*.fio.gz; do
            # Half a million files take seconds to plan: every mutation of it would too.
            case "$f" in */filecreate-ioengine.fio*) continue ;; esac
            [ -f "$f" ] || continue
            case "$f" in
            *.gz) gzip -dc "$f" >"$work/corpus/fio/$(basename "$f" .gz)" ;;
            *) cp "$f" "$work/corpus/fio/" ;;
            esac
        done
    fi
    "${fuzz[@]}" run "${flags[@]}" "$t" "$work/corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 >"$work/$t.log" 2>&1
}

pids=()
jobs_at_once=$(nproc)
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do
        sleep 1
    done
    run_one "$t" &
    pids+=("$!")
done

failed=0
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    status=0
    wait "${pids[$i]}" || status=$?
    runs=$(grep -o 'Done [0-9]* runs' "$work/$t.log" | grep -o '[0-9]*' || true)
    if [ "$status" -eq 0 ]; then
        echo "fuzz $t: ${runs:-?} executions in ${secs}s, no crash"
    else
        failed=$((failed + 1))
        echo "fuzz $t: FAILED (exit $status) after ${runs:-?} executions:"
        grep -v '^#' "$work/$t.log" | tail -n 40
        for a in "artifacts/$t"/*; do
            [ -f "$a" ] && { echo "input $a:"; od -A d -c "$a" | head -n 40; }
        done
    fi
done
passed=$((${#targets[@]} - failed))
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
