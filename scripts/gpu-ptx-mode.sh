#!/usr/bin/env bash
# On a GPU node: the pre-Hopper code paths on the hardware at hand. A second
# build, build-ptx/, holds PTX only, for compute_75 and compute_80 (no
# sm_90 code), so the driver compiles it at load and every kernel runs the
# code a Turing or Ampere GPU would (__CUDA_ARCH__ 800 on an sm_80-or-later
# device): gpu-radik's multi-pass query where the native build takes clusters,
# the sm_80 tuning policies, the warp reductions' fallbacks on neither.
# docs/architectures.md says what it shows. Three steps, each within one
# call of a lent node:
#
#   scripts/gpu-ptx-mode.sh OUT build            build-ptx/ (and build-gpu/, the
#                                                native build, when missing)
#   scripts/gpu-ptx-mode.sh OUT tests [I/N]      the GPU tests (ctest -L gpu) on
#                                                build-ptx/; I/N: the I-th of N
#                                                interleaved parts (ctest -I I,,N)
#   scripts/gpu-ptx-mode.sh OUT perf [CONFIG]... the short performance configs
#                                                (configs/arch/*-short.ini) on both
#                                                builds, alternating, and
#                                                `permbench compare native ptx`
#
# Logs and results go under OUT: build-ptx.log, info-ptx.txt (the code mode
# and the path permbench reports), ctest-ptx[-I-of-N].log, and for each
# config perf/<name>/{native,ptx,compare}/ with its logs. The build comes
# from the offline bundle as scripts/gpu-node-build.sh does
# (PB_BUILD_FROM_TREE=1: this tree). PTX compiled at load is cached by the
# driver (CUDA_CACHE_PATH, build-ptx-jitcache/ unless set), so later steps start
# fast. Exits 1 if a step failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: gpu-ptx-mode.sh OUT build|tests [I/N]|perf [CONFIG]...}
step=${2:?usage: gpu-ptx-mode.sh OUT build|tests [I/N]|perf [CONFIG]...}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
native=$root/build-gpu
ptx=$root/build-ptx
ptx_archs="75-virtual;80-virtual"
# The JIT's cache: large enough for every kernel of the binary.
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-$root/build-ptx-jitcache}
export CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}
[ -f /opt/permbench-deps/env.sh ] && . /opt/permbench-deps/env.sh
[ -f "$HOME/.local/permbench-deps/env.sh" ] && . "$HOME/.local/permbench-deps/env.sh"

bundle=$root/.bundle
prefix_args=()
if [ ! -f "$bundle/MANIFEST.txt" ]; then bundle=""; fi

build_one() { # build_one DIR ARCHS LOG
    if [ -n "$bundle" ]; then
        CUDA_ARCH=$2 "$root/scripts/gpu-node-build.sh" "$bundle" "${prefix_args[@]}" "$1" >"$3" 2>&1
    else # a node with the packages installed
        { cmake -S "$root" -B "$1" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$2" &&
            cmake --build "$1" -j"$(nproc)"; } >"$3" 2>&1
    fi
}
if [ -n "$bundle" ]; then
    if [ -w /opt ] || [ -w /opt/permbench-deps ]; then prefix_args=(/opt/permbench-deps)
    else prefix_args=("${HOME:?}/.local/permbench-deps"); fi
fi

case $step in
build)
    bad=0
    if [ ! -x "$native/permbench" ]; then
        build_one "$native" 90 "$out/build-gpu.log" || { echo "native build failed: $out/build-gpu.log"; tail -20 "$out/build-gpu.log"; bad=1; }
    fi
    t0=$(date +%s)
    build_one "$ptx" "$ptx_archs" "$out/build-ptx.log" || { echo "PTX build failed: $out/build-ptx.log"; tail -20 "$out/build-ptx.log"; exit 1; }
    echo "build-ptx: $(($(date +%s) - t0)) s"
    # The first start JIT-compiles what it loads; info says which code runs.
    t0=$(date +%s)
    "$ptx/permbench" info >"$out/info-ptx.txt" 2>&1 || bad=1
    "$ptx/permbench" info --json >"$out/info-ptx.json" 2>&1 || bad=1
    echo "first start of the PTX build: $(($(date +%s) - t0)) s"
    grep -E 'code|cuda code' "$out/info-ptx.txt"
    "$native/permbench" info >"$out/info-native.txt" 2>&1 || bad=1
    exit $bad
    ;;
tests)
    [ -x "$ptx/permbench" ] || { echo "gpu-ptx-mode.sh: no $ptx/permbench (run the build step first)" >&2; exit 2; }
    part=${1:-}
    sel=() log=$out/ctest-ptx.log
    if [ -n "$part" ]; then
        [[ $part =~ ^([0-9]+)/([0-9]+)$ ]] || { echo "gpu-ptx-mode.sh: a part is I/N, got '$part'" >&2; exit 2; }
        sel=(-I "${BASH_REMATCH[1]},,${BASH_REMATCH[2]}")
        log=$out/ctest-ptx-${BASH_REMATCH[1]}-of-${BASH_REMATCH[2]}.log
    fi
    jobs=${PB_CTEST_JOBS:-4}
    omp=${OMP_NUM_THREADS:-$(($(nproc) / jobs > 0 ? $(nproc) / jobs : 1))}
    env OMP_NUM_THREADS="$omp" ctest --test-dir "$ptx" -L gpu "${sel[@]}" -j "$jobs" --output-on-failure >"$log" 2>&1
    rc=$?
    tail -5 "$log"
    exit $rc
    ;;
perf)
    [ -x "$ptx/permbench" ] && [ -x "$native/permbench" ] ||
        { echo "gpu-ptx-mode.sh: need $native/permbench and $ptx/permbench (run the build step first)" >&2; exit 2; }
    configs=("$@")
    [ ${#configs[@]} -gt 0 ] || configs=("$root"/configs/arch/*-short.ini)
    bad=0
    for c in "${configs[@]}"; do
        name=$(basename "$c" .ini)
        d=$out/perf/$name
        mkdir -p "$d"
        for b in native ptx; do
            pb=$native/permbench
            [ $b = ptx ] && pb=$ptx/permbench
            t0=$(date +%s)
            "$pb" run "$c" --out "$d/$b" >"$d/$b.log" 2>&1
            rc=$?
            [ $rc -eq 0 ] || bad=1
            echo "$name $b: exit $rc in $(($(date +%s) - t0)) s"
        done
        "$native/permbench" compare "$d/native" "$d/ptx" --out "$d/compare" >"$d/compare.log" 2>&1
        tail -3 "$d/compare.log"
    done
    exit $bad
    ;;
*)
    echo "gpu-ptx-mode.sh: unknown step '$step' (build, tests or perf)" >&2
    exit 2
    ;;
esac
