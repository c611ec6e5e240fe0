#!/usr/bin/env bash
# Runs the test suite.
#
#   scripts/test.sh             the suite in the build directory
#                               scripts/setup.sh made: every test; GPU tests
#                               run when a CUDA device is present and report
#                               SKIP otherwise
#   scripts/test.sh --sanitize  the sanitizer pass: everything that runs
#                               without a GPU built again into build-asan/ by
#                               clang with AddressSanitizer and Undefined-
#                               BehaviorSanitizer (PB_SANITIZE, no recovery),
#                               the tests but those labelled nosan (statistics
#                               and timings whose code smaller tests run
#                               there, and scripts: tests/CMakeLists.txt),
#                               plus the fuzz harnesses: each replays its
#                               committed corpus and fuzzes for a few seconds
#                               (docs/fuzzing.md). Without clang it is built by
#                               the default compiler, without the harnesses.
#
# Only what changed is rebuilt, with the flags the build was configured
# with (configured, with warnings as errors, when there is none).
#
#   PB_BUILD_DIR        the build directory (default: build/)
#   PB_ASAN_BUILD_DIR   the sanitizer build directory (default: build-asan/)
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PB_BUILD_DIR:-$root/build}
asan=${PB_ASAN_BUILD_DIR:-$root/build-asan}
jobs=$(nproc)
suite=1 sanitize=0
case "${1:-}" in
"") ;;
--sanitize) suite=0 sanitize=1 ;;
-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
*) echo "test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

if [ "$suite" -eq 1 ]; then
    if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPB_WERROR=ON
    fi
    cmake --build "$build" -j"$jobs"
    ctest --test-dir "$build" --output-on-failure -j"$jobs"
fi

[ "$sanitize" -eq 1 ] || exit 0
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
ctest --test-dir "$asan" --output-on-failure -j"$jobs" -LE nosan
