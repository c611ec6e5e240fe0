#!/usr/bin/env bash
# One call on a lent GPU node: build from the offline bundle (skipped when
# build-gpu/ already holds this bundle's commit), run chosen tests, sweeps
# and quality batteries, and pack every log and result into one archive
# (OUT/session.tar.gz), since a node hands back few files.
#
#   scripts/gpu-node-session.sh OUT [--tests REGEX] [--peers] [--quality CONFIG]... [CONFIG]...
#
# Sweep results go to <name>/ and quality results to quality-<name>/ inside
# the archive, the runs' terminal output to <name>.log. With --peers, each
# sweep is followed by its PyTorch and CuPy peers on the same GPU
# (scripts/peers/run-peers.sh): <name>-peers/, <name>-with-peers/ (one
# figure), <name>-vs-peers/ and <name>-peers.log; a sweep of a family
# without peers, or a node without torch and cupy, logs why. ctest.log and
# info.txt beside them. The archive is rewritten after every step, so a call
# cut short by its time limit still hands back what finished. Prints a short
# summary last: each step's exit status and wall time. Exits 1 if any step
# failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: gpu-node-session.sh OUT [--tests REGEX] [--peers] [--quality CONFIG]... [CONFIG]...}
shift
tests="" quality=() sweeps=() peers=""
while [ $# -gt 0 ]; do
    case $1 in
    --tests) tests=$2; shift 2 ;;
    --peers) peers=1; shift ;;
    --quality) quality+=("$2"); shift 2 ;;
    *) sweeps+=("$1"); shift ;;
    esac
done
work=$out/work
mkdir -p "$work"
summary=$work/summary.txt
: >"$summary"
bad=0
# shellcheck source=scripts/lib/step.sh
. "$root/scripts/lib/step.sh"
# shellcheck disable=SC2317 # called by step (scripts/lib/step.sh)
step_after() { tar -czf "$out/session.tar.gz.tmp" -C "$work" . && mv "$out/session.tar.gz.tmp" "$out/session.tar.gz"; }

build=$root/build-gpu
want=$(tar -xzOf "$root/.bundle/source.tar.gz" ./cmake/git-archive.txt 2>/dev/null ||
    tar -xzOf "$root/.bundle/source.tar.gz" cmake/git-archive.txt 2>/dev/null)
have=$(grep -o '"[0-9a-f]\{40\}"' "$build/generated/build_info.c" 2>/dev/null | head -1 | tr -d '"')
if [ -z "$want" ] || [ "$want" != "$have" ]; then
    step build "$work/build.log" "$root/scripts/gpu-node-build.sh" || { tail -30 "$work/build.log"; exit 1; }
fi
pb=$build/permbench
# The bundle's tools (gnuplot for the figures) and libraries.
[ -f /opt/permbench-deps/env.sh ] && . /opt/permbench-deps/env.sh
[ -f "$HOME/.local/permbench-deps/env.sh" ] && . "$HOME/.local/permbench-deps/env.sh"
"$pb" info >"$work/info.txt" 2>&1
nvidia-smi >>"$work/info.txt" 2>&1
nvidia-smi topo -m >>"$work/info.txt" 2>&1
# Tests run PB_CTEST_JOBS at once, each with its share of the cores for its
# OpenMP twin (OMP_NUM_THREADS, unless set): tests that each take every
# core for their twin oversubscribe the node and run several times slower
# than alone.
jobs=${PB_CTEST_JOBS:-4}
omp=${OMP_NUM_THREADS:-$(($(nproc) / jobs > 0 ? $(nproc) / jobs : 1))}
[ -z "$tests" ] || step "ctest -R $tests" "$work/ctest.log" \
    env OMP_NUM_THREADS="$omp" ctest --test-dir "$build" -R "$tests" -j "$jobs" -V
for c in "${sweeps[@]}"; do
    name=$(basename "$c" .ini)
    step "run $name" "$work/$name.log" "$pb" run "$c" --out "$work/$name"
    # the peers of a run that finished (all rows written, failed or not)
    [ -z "$peers" ] || [ ! -s "$work/$name/results.csv" ] ||
        step "peers $name" "$work/$name-peers.log" env PERMBENCH="$pb" \
            "$root/scripts/peers/run-peers.sh" "$work" "$work/$name"
done
for c in "${quality[@]}"; do
    name=quality-$(basename "$c" .ini)
    step "quality $(basename "$c" .ini)" "$work/$name.log" "$pb" quality "$c" --out "$work/$name"
done
tar -czf "$out/session.tar.gz" -C "$work" .
cp "$summary" "$out/summary.txt"
rm -rf "$work"
echo "archive: $out/session.tar.gz ($(du -h "$out/session.tar.gz" | cut -f1))"
exit $bad
