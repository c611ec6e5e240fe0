#!/usr/bin/env bash
# Runs the whole test suite, twice:
#  1. in the build directory scripts/setup.sh made (only what changed is
#     rebuilt, with the flags it was configured with; configured, with
#     warnings as errors, when there is none). GPU tests run when a CUDA
#     device is present and report SKIP otherwise;
#  2. in the sanitizer build, build-asan/: everything that runs without a
#     GPU, compiled by clang with AddressSanitizer and UndefinedBehavior-
#     Sanitizer (PB_SANITIZE, no recovery), plus the fuzz harnesses: each
#     replays its committed corpus and fuzzes for a few seconds
#     (docs/fuzzing.md). Without clang it is built by the default compiler,
#     without the harnesses.
#
#   PB_BUILD_DIR        the build directory (default: build/)
#   PB_ASAN_BUILD_DIR   the sanitizer build directory (default: build-asan/)
#   PB_SANITIZE=OFF     skips the sanitizer build
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PB_BUILD_DIR:-$root/build}
asan=${PB_ASAN_BUILD_DIR:-$root/build-asan}
jobs=$(nproc)
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPB_WERROR=ON
fi
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs"

[ "${PB_SANITIZE:-ON}" = OFF ] && exit 0
if [ ! -f "$asan/CMakeCache.txt" ]; then
    compilers=() fuzz=AUTO
    if command -v clang >/dev/null && command -v clang++ >/dev/null; then
        compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
        fuzz=ON
    else
        echo "test.sh: no clang (scripts/setup.sh installs it): the sanitizer build runs without the fuzz harnesses" >&2
    fi
    cmake -S "$root" -B "$asan" "${compilers[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPB_WERROR=ON -DPB_SANITIZE=ON -DPB_FUZZ="$fuzz"
fi
cmake --build "$asan" -j"$jobs"
ctest --test-dir "$asan" --output-on-failure -j"$jobs"
