#!/usr/bin/env bash
# l2-shuffle-gpu-check.sh [BUILD_DIR] [OUT_DIR]: gpu-l2-shuffle's
# correctness evidence on a GPU node, in one command (docs/l2-shuffle.md),
# from the repository root, with a CUDA build in BUILD_DIR (default
# build-gpu):
#
#  1. the tests of the module and of the model and kernels it shares with
#     gpu-rao-sandelius: the C models (l2s_*, grs_model_*), and on the
#     device the timed run and the sample permutations equal to the model
#     bit for bit, the forced overflow among the shapes (gpu_l2s_*,
#     gpu_grs_*);
#  2. compute-sanitizer --tool memcheck over permbench run of
#     configs/arch/l2-shuffle-memcheck.ini: one small shape of each path
#     (groups in a slot, overflows in place, overflows through the global
#     path), u32, u64 and 256-byte records, every sample checked.
#
# Writes OUT_DIR (default l2-shuffle-check/): ctest.log, memcheck.log, the
# run's results. Exit status 0 when both pass, 1 otherwise, 2 when the
# build is missing.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/lib/gpu-check.sh"
gpu_check_dirs l2-shuffle-gpu-check "${1:-$root/build-gpu}" "${2:-l2-shuffle-check}"
status=0

(cd "$build" && ctest -R '^(l2s_|grs_model_|gpu_l2s_|gpu_grs_)' -j 2 --output-on-failure) >"$out/ctest.log" 2>&1 ||
    status=1
skipped=$(grep -c '(Skipped)' "$out/ctest.log")
[ "$skipped" -eq 0 ] || status=1 # on a GPU node nothing may skip
echo "tests    : $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1); $skipped skipped"

rm -rf "$out/memcheck-run"
"$sanitizer" --tool memcheck --error-exitcode 3 "$build/permbench" run "$root/configs/arch/l2-shuffle-memcheck.ini" \
    --out "$out/memcheck-run" --quiet >"$out/memcheck.log" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
echo "memcheck : exit $rc; $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)"
exit $status
