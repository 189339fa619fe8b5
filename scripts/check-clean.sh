#!/usr/bin/env bash
# After a test run: the tree is as the tests found it (no file written into the checkout) and
# no process the tests started is still running (fio, iogauge, mpirun orphaned to init).
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
names=(fio iogauge mpirun orterun prterun)
left=$(for n in "${names[@]}"; do pgrep -a -x "$n"; done)
if [ -n "$left" ]; then
    echo "check-clean: the test run left processes running:" >&2
    echo "$left" >&2
    for n in "${names[@]}"; do pkill -KILL -x "$n"; done
    bad=1
fi
[ "$bad" = 0 ] && echo "check-clean: tree unchanged, no process left"
exit "$bad"
