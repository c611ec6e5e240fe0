#!/usr/bin/env bash
# Installs what permbench needs and is missing (Debian/Ubuntu packages), builds
# it into build/, and runs a first job sized to this machine: every shuffle
# module it can run (the GPU ones where there is a CUDA device), with their
# ceilings, at four sizes and a few samples a point, each point cut off after
# a second; its last lines say how to run the full sweep.
#
#   scripts/setup.sh            install, build, run the first job
#   scripts/setup.sh --no-run   install and build only
#   scripts/setup.sh --first-job [ARG...]
#                               the first job alone, on the build there
#                               (ARGs added to its run: --dry-run, --out DIR)
#
# CUDA is not installed from packages. Where a CUDA device is visible and
# nvcc is on PATH or under /usr/local/cuda, the GPU modules are built for
# that device; on a machine without one the build is CPU-only (a first
# result in minutes: the GPU modules' compile is most of a full build and
# nothing here could run them). PB_CUDA=ON builds the GPU modules anyway
# (for another machine, or to check they compile: CI does), PB_CUDA=OFF
# never. PB_WERROR=ON builds with warnings as errors (CI does).
# PB_CUDA_ARCH=LIST builds those CUDA architectures (default: this machine's
# GPU, or sm_90 with PB_CUDA=ON and none; 90-virtual is PTX alone, no ptxas).
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run_default=1 first_only=0
case "${1:-}" in
--no-run) run_default=0 ;;
--first-job) first_only=1; shift ;;
-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
"") ;;
*) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

first_job() {
    # The first job: configs/default.ini cut to a minute or two. Its bound
    # is points x (timeout + one sample and its check): about 20 CPU
    # modules and their ceilings at 4 sizes stay within 90 s on 2 cores; a
    # GPU node adds about 20 GPU modules, fast at every size, and its sizes
    # reach 2^24 items (128 MiB, past the L2 of any GPU) where the CPU
    # modules take a few seconds a point. More cores make the CPU modules
    # faster, not more numerous, so the sizes depend on the GPU alone.
    local pb=${PB_PERMBENCH:-$root/build/permbench} where sizes
    if "$pb" info --json | grep -q '"present": true'; then
        where="$(nproc) cores and a GPU" sizes="2^12 .. 2^24 *16"
    else
        where="$(nproc) cores, no GPU" sizes="2^10 .. 2^22 *16"
    fi
    echo "setup.sh: a first look sized to this machine ($where): sizes $sizes, at most 20 samples or 1 s a point"
    "$pb" run -D "sweep.sizes=$sizes" -D sweep.min_samples=3 -D sweep.min_time=0.05 \
        -D sweep.max_samples=20 -D sweep.timeout=1 -D sweep.max_noise=5 "$@"
}
if [ "$first_only" -eq 1 ]; then
    first_job "$@"
    exit
fi

want=$(grep -v '^#' "$root/scripts/packages.txt" | grep -v '^$')
missing=()
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The build is for this machine: CMake's default is `native` where a GPU is
# visible. With none, CPU-only unless PB_CUDA=ON; then the release list of
# seven architectures would be built, so one is instead, sm_90
# (PB_CUDA_ARCH overrides), and scripts/check-archs.sh compiles the
# architecture-specific sources for the others (docs/architectures.md).
arch=${PB_CUDA_ARCH:-}
cuda=${PB_CUDA:-}
case $cuda in "" | AUTO | ON | OFF) ;; *) echo "setup.sh: PB_CUDA is AUTO, ON or OFF, not '$cuda'" >&2; exit 2 ;; esac
query=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/__nvcc_device_query
if ! { [ -x "$query" ] && "$query" >/dev/null 2>&1; }; then
    if [ -z "$cuda" ] || [ "$cuda" = AUTO ]; then
        cuda=OFF
        echo "setup.sh: no CUDA device here: a CPU-only build (PB_CUDA=ON scripts/setup.sh builds the GPU modules too)"
    fi
    [ -n "$arch" ] || arch=90
fi
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DPB_WERROR="${PB_WERROR:-OFF}" \
    -DPB_CUDA="${cuda:-AUTO}" -DPB_CUDA_ARCH="$arch"
cmake --build "$root/build" -j"$(nproc)"
[ "$run_default" -eq 1 ] || exit 0

cd "$root"
rc=0
first_job || rc=$?
cat <<EOT

setup.sh: that was a first look. The full sweep (configs/default.ini: sizes 2^10
to 2^24, a 2% noise target, up to 200 samples or 10 s a point) takes longer:
  build/permbench run --dry-run   # its points and the time each should take here
  build/permbench run             # the full sweep, into results/default/<timestamp>/
  scripts/test.sh                 # the test suite
EOT
exit "$rc"
