#!/usr/bin/env bash
# On a GPU node: build from the offline bundle (scripts/gpu-node-build.sh)
# and run the whole test suite there, the GPU tests included; the logs go
# to OUT_DIR (build.log, info.txt, nvidia-smi.txt, ctest.log).
#
#   scripts/gpu-node-check.sh [OUT_DIR]       (default: $OUT, else ./gpu-check)
#
# Prints the GPU tests' lines and ctest's summary; exits with ctest's status.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-${OUT:-$root/gpu-check}}
mkdir -p "$out"
start=$(date +%s)
if ! "$root/scripts/gpu-node-build.sh" >"$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    exit 1
fi
build=$root/build-gpu
"$build/permbench" info >"$out/info.txt" 2>&1
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
echo "build: $(($(date +%s) - start)) s"
# Each test its share of the cores for its OpenMP parts (as in
# gpu-node-session.sh: eight 16-thread tests on 16 cores ran 2.5-3.5x slower).
jobs=${PB_CTEST_JOBS:-8}
omp=${OMP_NUM_THREADS:-$(($(nproc) / jobs > 0 ? $(nproc) / jobs : 1))}
OMP_NUM_THREADS=$omp ctest --test-dir "$build" -j "$jobs" --output-on-failure >"$out/ctest.log" 2>&1
rc=$?
grep -E ' gpu_|tests passed|tests failed|Total Test time' "$out/ctest.log"
echo "wall: $(($(date +%s) - start)) s"
exit $rc
