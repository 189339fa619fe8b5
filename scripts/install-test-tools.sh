#!/usr/bin/env bash
# Installs the outside tools some tests and benchmarks use, from Debian's packages:
#   fio          checks the fio job files `iogauge explain` writes; bench/ compares with it
#   tmux         shows the progress bar on a real terminal
#   chromium     opens the HTML report headless: no errors, every chart rendered
#   xfsprogs     mkfs.xfs, btrfs-progs: mkfs.btrfs, bindfs: a FUSE passthrough; tests/fs.rs
#                builds xfs and btrfs images and a FUSE mount to run `iogauge fs` on
#   strace       counts the fsync/fdatasync calls a job makes (tests/fio.rs)
#   fio-examples fio's own example job files: seeds for the fio fuzz target (scripts/fuzz.sh)
#   openmpi-bin, libopenmpi-dev, libclang-dev
#                mpirun, and what building with `--features mpi` needs (rsmpi binds the MPI
#                library through libclang): tests/mpi.rs runs iogauge under mpirun -np 4
#   iproute2     ip: two stand-in hosts in network namespaces (scripts/mpi-hosts.sh) for
#                tests/mpi.rs's test across hosts
#   zip, unzip, zstd
#                the system's own tools that tests/workload.rs and bench/workload.sh run
#                beside iogauge's workloads (cp, tar, find and rm come with the system)
#   gnuplot-nox  gnuplot, which fio's own fio_generate_plots draws fio's logs with (tests/fio.rs
#                compares its graphs of iogauge's logs and of fio's)
#   python3-pandas
#                pandas and numpy, which fio's fiologparser_hist.py (shipped in fio's package)
#                needs to read histogram logs (tests/fio.rs)
#   fuse3, and mfusepy from PyPI
#                tests/faultfs.py, the FUSE file system that injects faults for
#                tests/verify.rs (this kernel has no device-mapper)
#   fio-plot from PyPI
#                draws graphs from fio's JSON and logs; tests/fio.rs has it draw iogauge's, and
#                tests/fio_consumers.rs has its bench-fio drive iogauge through a `fio` shim
#   cdmpy from PyPI
#                `cdm`, CrystalDiskMark's tests run by fio: tests/fio_consumers.rs has it run
#                iogauge through a `fio` shim
#   python3-six, and six from PyPI
#                what fio's fio2gnuplot (in Debian's fio package) imports: tests/fio_consumers.rs
#                has it plot iogauge's logs beside fio's
#   wine64, gcc-mingw-w64-x86-64, and rustup's x86_64-pc-windows-gnu target (and
#                x86_64-unknown-freebsd, for a build check only)
#                run iogauge.exe's tests under Wine (tests/windows.rs); mingw also builds
#                scripts/wine/bcryptprimitives.c. wine64 puts no command on PATH: its loader is
#                /usr/lib/wine/wine64 (scripts/wine/setup.sh and scripts/wine-run.sh find it)
# Without them those tests say SKIPPED. Needs root or sudo; does nothing for tools already
# present.
set -euo pipefail
want=()
# command:package
for pair in fio:fio tmux:tmux chromium:chromium mkfs.xfs:xfsprogs mkfs.btrfs:btrfs-progs \
    bindfs:bindfs strace:strace mpirun:openmpi-bin mpicc:libopenmpi-dev ip:iproute2 \
    zip:zip unzip:unzip zstd:zstd fusermount3:fuse3 gnuplot:gnuplot-nox \
    x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64; do
    command -v "${pair%%:*}" >/dev/null || want+=("${pair##*:}")
done
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null || want+=(wine64)
[ -d /usr/share/doc/fio/examples ] || want+=(fio-examples)
compgen -G "/usr/lib/llvm-*/lib/libclang.so*" >/dev/null || want+=(libclang-dev)
/usr/bin/python3 -c 'import pandas, numpy' 2>/dev/null || want+=(python3-pandas)
/usr/bin/python3 -c 'import six' 2>/dev/null || want+=(python3-six)
pip_mfusepy() {
    python3 -c 'import mfusepy' 2>/dev/null && return 0
    command -v python3 >/dev/null || return 0
    echo "install-test-tools: installing mfusepy (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore mfusepy \
        || echo "install-test-tools: mfusepy could not be installed; tests/verify.rs's fault tests will say SKIPPED" >&2
}
pip_fio_plot() {
    command -v fio-plot >/dev/null && return 0
    command -v python3 >/dev/null || return 0
    echo "install-test-tools: installing fio-plot (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore fio-plot \
        || echo "install-test-tools: fio-plot could not be installed; tests/fio.rs's fio-plot test will say SKIPPED" >&2
}
pip_cdmpy() {
    command -v cdm >/dev/null && return 0
    command -v python3 >/dev/null || return 0
    echo "install-test-tools: installing cdmpy (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore cdmpy \
        || echo "install-test-tools: cdmpy could not be installed; tests/fio_consumers.rs's cdmpy test will say SKIPPED" >&2
}
# fio2gnuplot runs the python3 on PATH, which may not be the system's.
pip_six() {
    python3 -c 'import six' 2>/dev/null && return 0
    command -v python3 >/dev/null || return 0
    echo "install-test-tools: installing six (PyPI) for fio2gnuplot" >&2
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore six \
        || echo "install-test-tools: six could not be installed; tests/fio_consumers.rs's fio2gnuplot test will say SKIPPED" >&2
}
# Rust's standard library for the Windows build, and for FreeBSD (a system with no port of its
# own: .ci/run checks that iogauge builds there, which keeps the platform layer honest), for
# the toolchain this checkout uses.
rust_targets() {
    command -v rustup >/dev/null || return 0
    local root target
    root=$(cd "$(dirname "$0")/.." && pwd)
    for target in x86_64-pc-windows-gnu x86_64-unknown-freebsd; do
        (cd "$root" && rustup target list --installed) | grep -x "$target" >/dev/null \
            && continue
        echo "install-test-tools: adding the $target target (rustup)" >&2
        (cd "$root" && rustup target add "$target" >/dev/null) \
            || echo "install-test-tools: the $target target could not be added" >&2
    done
}
pip_all() {
    pip_mfusepy
    pip_fio_plot
    pip_cdmpy
    pip_six
}
rust_targets
if [ ${#want[@]} -eq 0 ]; then
    pip_all
    exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
if ! command -v apt-get >/dev/null; then
    echo "install-test-tools: no apt-get here; install ${want[*]} yourself (tests that need them will say SKIPPED)" >&2
    exit 0
fi
echo "install-test-tools: installing ${want[*]} (Debian packages)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${want[@]}" >/dev/null
pip_all
