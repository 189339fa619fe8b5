#!/usr/bin/env bash
# After a test run: the tree is as the tests found it (no file written into the checkout) and
# no process the tests started is still running (fio, iogauge, mpirun orphaned to init, Wine).
# Exits 1 naming what was left; a process left is killed, so that the next step starts clean.
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
dirty=$(git status --porcelain --untracked-files=all)
if [ -n "$dirty" ]; then
    echo "check-clean: the test run left the tree changed:" >&2
    echo "$dirty" >&2
    bad=1
fi
# Wine's (tests/windows.rs): its server, and the services it starts beside a program. A Rust
# .exe under Wine shows as `main`, too common a name to look for: the server outlives it.
names=(fio iogauge mpirun orterun prterun orted prted wineserver wineserver64 winedevice.exe)
pattern=$(IFS='|'; echo "^(${names[*]})$")
# What still runs: zombies are left out, as they have ended (PID 1 here reaps them when it gets
# round to it: CI once saw an MPI rank's zombie a moment after the tests). A process ending as
# the tests end (an MPI daemon leaving) gets 10 s.
running() { ps -eo pid=,stat=,comm= | awk -v re="$pattern" '$2 !~ /^Z/ && $3 ~ re'; }
left=$(running)
for _ in $(seq 1 50); do
    [ -z "$left" ] && break
    sleep 0.2
    left=$(running)
done
if [ -n "$left" ]; then
    echo "check-clean: the test run left processes running:" >&2
    echo "$left" >&2
    for n in "${names[@]}"; do pkill -KILL -x "$n"; done
    bad=1
fi
[ "$bad" = 0 ] && echo "check-clean: tree unchanged, no process left"
exit "$bad"
