#!/usr/bin/env bash
# Installs what permbench needs and is missing (Debian/Ubuntu packages), builds
# it into build/, and runs the default job.
#
#   scripts/setup.sh            install, build, run the default job
#   scripts/setup.sh --no-run   install and build only
#
# CUDA is not installed from packages: if nvcc is on PATH or under
# /usr/local/cuda, the GPU modules are built too; otherwise a CPU-only build.
# PB_WERROR=ON builds with warnings as errors (CI does). PB_CUDA_ARCH=LIST
# builds those CUDA architectures (default: this machine's GPU, or sm_90).
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run_default=1
case "${1:-}" in
--no-run) run_default=0 ;;
-h | --help) sed -n '2,10p' "$0"; exit 0 ;;
"") ;;
*) echo "setup.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

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
# visible; with none (CI) it would be the release list of seven
# architectures, so one is built instead, sm_90 (PB_CUDA_ARCH overrides),
# and scripts/check-archs.sh compiles the architecture-specific sources for
# the others (docs/architectures.md).
arch=${PB_CUDA_ARCH:-}
query=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/__nvcc_device_query
if [ -z "$arch" ] && ! { [ -x "$query" ] && "$query" >/dev/null 2>&1; }; then arch=90; fi
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DPB_WERROR="${PB_WERROR:-OFF}" \
    -DPB_CUDA_ARCH="$arch"
cmake --build "$root/build" -j"$(nproc)"
if [ "$run_default" -eq 1 ]; then
    cd "$root"
    exec "$root/build/permbench" run
fi
