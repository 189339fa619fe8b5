#!/usr/bin/env bash
# Installs the outside tools some tests and benchmarks use, from Debian's packages: fio (to
# check the fio job files `iogauge explain` writes, and for bench/), tmux (to see the progress
# bar on a real terminal), chromium (to open the HTML report headless and check that it loads
# with no errors and that every chart renders). Without them those tests say SKIPPED. Needs root or sudo; does
# nothing for tools already present.
set -euo pipefail
want=()
for tool in fio tmux chromium; do
    command -v "$tool" >/dev/null || want+=("$tool")
done
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
if ! command -v apt-get >/dev/null; then
    echo "install-test-tools: no apt-get here; install ${want[*]} yourself (tests that need them will say SKIPPED)" >&2
    exit 0
fi
echo "install-test-tools: installing ${want[*]} (Debian packages)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${want[@]}" >/dev/null
