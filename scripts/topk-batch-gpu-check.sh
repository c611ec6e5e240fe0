#!/usr/bin/env bash
# topk-batch-gpu-check.sh [BUILD_DIR] [OUT_DIR] [--perf] [--grid] [--ncu]: gpu-radik's
# cluster paths on a GPU node in one command (docs/topk-radik.md), from the
# repository root, with a CUDA build in BUILD_DIR (default build-gpu):
#
#  1. the tests: gpu_topk_cluster_word (32- and 64-bit keys), gpu_topk_cluster
#     (fp16 / bf16), gpu_topk_cluster_blocks (every count of blocks a row),
#     gpu_topk_cluster_best (k = 1) and gpu_topk_small, against the host twin;
#  2. compute-sanitizer memcheck and racecheck over permbench run of
#     configs/profile/topk-cluster-word-sanitizer.ini and
#     topk-cluster-sanitizer.ini (each flow of the word-key and the 16-bit
#     kernel at small awkward shapes);
#  3. with --perf, the target batch shapes (configs/paper/topk-targets-n*.ini:
#     the cluster path, the multi-pass query and gpu-cub-topk, five seeds,
#     the copy in the same run), run after the tests, alone on the node;
#  4. with --grid, configs/paper/topk-llm-peers.ini (radik and gpu-cub-topk
#     at every point of the LLM batch grid, about 9 minutes), then
#     scripts/peers/run-peers.sh over it (torch.topk, JAX) into
#     OUT_DIR/peers/;
#  5. with --ncu, Nsight Compute of the word-key kernel at 64 x 2^17 and
#     256 x 2^19 fp32 (the full set, and the source page, whose per-line
#     stall counts say where the kernel waits).
#
# Writes OUT_DIR (default topk-batch-check/): tests.log,
# <tool>-<config>.log, targets-<n>/, topk-llm-peers/, peers/ and
# ncu-<shape>.{ncu-rep,csv}. Exit status 0
# when every step run passed, 1 otherwise, 2 on bad arguments or a
# missing build.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
perf=0 grid=0 ncu=0 args=()
for a in "$@"; do
    case $a in
    --perf) perf=1 ;;
    --grid) grid=1 ;;
    --ncu) ncu=1 ;;
    -*) echo "topk-batch-gpu-check: unknown option '$a' (--perf, --grid, --ncu)" >&2; exit 2 ;;
    *) args+=("$a") ;;
    esac
done
[ ${#args[@]} -le 2 ] || { echo "topk-batch-gpu-check: at most BUILD_DIR and OUT_DIR" >&2; exit 2; }
. "$root/scripts/lib/gpu-check.sh"
gpu_check_dirs topk-batch-gpu-check "${args[0]:-$root/build-gpu}" "${args[1]:-topk-batch-check}"
status=0

(cd "$build" && ctest -R '^gpu_topk_(cluster|cluster_word|cluster_blocks|cluster_best|small)$' -j 3 --output-on-failure) \
    >"$out/tests.log" 2>&1 || status=1
skipped=$(grep -c '(Skipped)' "$out/tests.log")
[ "$skipped" -eq 0 ] || status=1 # on a GPU node with sm_90 code nothing may skip
echo "tests     : $(grep -E 'tests passed|tests failed' "$out/tests.log" | tail -1); $skipped skipped"

for name in topk-cluster-word-sanitizer topk-cluster-sanitizer; do
    cfg=$root/configs/profile/$name.ini
    for tool in memcheck racecheck; do
        run=$out/$tool-${name%-sanitizer}
        rm -rf "$run"
        # one sample a point: a sanitizer sees each flow in its first launch,
        # and racecheck takes seconds a launch at 2^20 keys
        "$sanitizer" --tool "$tool" --error-exitcode 3 "$build/permbench" run "$cfg" --out "$run" \
            -D sweep.max_samples=1 --quiet >"$run.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || status=1
        printf '%-10s: %s exit %d; %s\n' "$tool" "$name" "$rc" \
            "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$run.log" | tail -1)"
    done
done

if [ $perf -eq 1 ]; then
    for cfg in "$root"/configs/paper/topk-targets-n*.ini; do
        name=$(basename "$cfg" .ini)
        "$build/permbench" run "$cfg" --out "$out/$name" >"$out/$name.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || status=1
        echo "perf      : $name exit $rc ($out/$name.log)"
    done
fi

if [ $grid -eq 1 ]; then
    "$build/permbench" run "$root/configs/paper/topk-llm-peers.ini" --out "$out/topk-llm-peers" \
        >"$out/topk-llm-peers.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "grid      : topk-llm-peers exit $rc ($out/topk-llm-peers.log)"
    PERMBENCH=$build/permbench "$root/scripts/peers/run-peers.sh" "$out/peers" "$out/topk-llm-peers" \
        >"$out/peers.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "peers     : run-peers.sh exit $rc ($out/peers.log)"
fi

if [ $ncu -eq 1 ]; then
    for shape in "64 2^17 1024" "256 2^19 256"; do
        set -- $shape
        tag="r$1-n${2/^/e}-k$3"
        printf '[sweep]\nfamily = topk\nsizes = %s\nitem = u32\nseed = 2026\nmin_samples = 1\nmax_samples = 1\nmin_time = 0\nceilings = none\n\n[radik]\nmodule = gpu-radik\nrows = %s\ndtype = f32\ndist = normal\nk = %s\n' \
            "$2" "$1" "$3" >"$out/ncu-$tag.ini"
        ncu --set full --import-source yes --kernel-name regex:pb_radik_cluster --launch-count 1 \
            -o "$out/ncu-$tag" -f "$build/permbench" run "$out/ncu-$tag.ini" --out "$out/ncu-$tag-run" \
            >"$out/ncu-$tag.log" 2>&1 || status=1
        ncu --import "$out/ncu-$tag.ncu-rep" --page details --csv >"$out/ncu-$tag.csv" 2>/dev/null
        ncu --import "$out/ncu-$tag.ncu-rep" --page source --csv >"$out/ncu-$tag-source.csv" 2>/dev/null
        echo "ncu       : $tag ($out/ncu-$tag.ncu-rep)"
    done
fi
exit $status
