#!/usr/bin/env bash
# scripts/check-archs.sh on this build: it finds the architecture-specific
# sources (gpu-radik's cluster kernels and its tuned kernels, the multisplits'),
# not the others, and a source that does not compile for an architecture
# is a failure with its errors (sm_70, which CUDA 13 dropped, fails fast)
# and one that compiles is not;
# PB_ARCHS=classes picks one architecture a class of identical device code.
#   check_archs.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
[ -f "$build/compile_commands.json" ] && grep -q '\.cu"' "$build/compile_commands.json" ||
    { echo "skipped: built without CUDA"; exit 77; }
list=$(PB_ARCH_LIST_ONLY=1 "$src/scripts/check-archs.sh" "$build" 2>&1)
bad=0
for f in algorithms/topk/radik/radik.cu algorithms/topk/radik/radik_cluster.cu \
    algorithms/multisplit/gpu_ms_split.cu algorithms/multisplit/gpu_ms_histogram.cu \
    algorithms/multisplit/gpu_onesweep_ms.cu; do
    grep -qx "$f" <<<"$list" || { echo "FAIL: $f not found: $list"; bad=1; }
done
for f in families/shuffle/gpu_shuffle_buffers.cu core/gpu.cu; do
    grep -qx "$f" <<<"$list" && { echo "FAIL: $f is not architecture-specific: $list"; bad=1; }
done
# The classes: the oldest release architecture, and the oldest at or above
# each threshold the sources test (800: redux.sync, 900: clusters).
classes=$(PB_ARCHS=classes PB_ARCH_LIST_ONLY=1 "$src/scripts/check-archs.sh" "$build" 2>&1 | head -1)
[ "$classes" = "architectures: 75 80 90 (cubin)" ] || { echo "FAIL: classes: $classes"; bad=1; }
out=$(PB_ARCHS=70 PB_ARCH_ONLY=radik_cluster "$src/scripts/check-archs.sh" "$build" 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: a failed compile exits $rc, not 1: $out"; bad=1; }
grep -q '^FAIL algorithms/topk/radik/radik_cluster.cu sm_70:' <<<"$out" ||
    { echo "FAIL: the failure is not named: $out"; bad=1; }
grep -q "1 compiles (0 ok, 1 failed)" <<<"$out" || { echo "FAIL: no summary: $out"; bad=1; }
# A source that compiles: exit 0 and the summary (sm_75: gpu-radik's cluster
# kernels are the empty shell there, a few seconds).
out=$(PB_ARCHS=75 PB_ARCH_ONLY=radik_cluster "$src/scripts/check-archs.sh" "$build" 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: a good compile exits $rc: $out"; bad=1; }
grep -q "1 compiles (1 ok, 0 failed)" <<<"$out" || { echo "FAIL: no summary: $out"; bad=1; }
[ $bad -eq 0 ] && echo "ok: $(echo "$list" | tr '\n' ' ')"
exit $bad
