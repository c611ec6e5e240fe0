#!/usr/bin/env bash
# Runs the whole test suite. Reuses the build directory scripts/setup.sh
# made (only what changed is rebuilt, with the flags it was configured
# with); configures one, with warnings as errors, when there is none.
# GPU tests run when a CUDA device is present and report SKIP otherwise.
#
#   PB_BUILD_DIR   the build directory (default: build/)
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PB_BUILD_DIR:-$root/build}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPB_WERROR=ON
fi
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
