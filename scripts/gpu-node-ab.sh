#!/usr/bin/env bash
# gpu-node-ab.sh OUT CONFIG ORDER - a same-session A/B on one GPU node.
# Medians of one build differ by a few percent from node to node, so a
# comparison of two builds is only fair on one node in one session: this
# builds the bundle's source (B, scripts/gpu-node-build.sh) and the archive
# .bundle/baseline.tar.gz (A, a git archive of an older commit made by
# offline-bundle.sh --baseline REV), then runs CONFIG with each in ORDER
# (e.g. "ABA": the older build, the newer, the older again). Every run lands in
# OUT/ab/<n>-<A|B>/ and OUT/ab.tar.gz is rewritten after each step, so a call
# cut short keeps what finished. The config is each tree's own copy of CONFIG.
# At the end OUT holds ab.tar.gz and summary.txt only (PB_AB_KEEP=1 keeps
# OUT/ab/ too): a lent node hands back few files, and a run's figures and
# logs are many.
set -uo pipefail
out=${1:?usage: gpu-node-ab.sh OUT CONFIG ORDER} cfg=${2:?config} order=${3:-AB}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$out/ab old=${PB_AB_DIR:-/tmp/pb-baseline}
mkdir -p "$work" "$old/src"
pack() { tar -czf "$out/ab.tar.gz.tmp" -C "$work" . && mv "$out/ab.tar.gz.tmp" "$out/ab.tar.gz"; }
step() { # step NAME LOG CMD... : time it, log it, pack
    local name=$1 log=$2 t0=$SECONDS rc; shift 2
    "$@" >"$log" 2>&1; rc=$?
    printf '%-40s exit %-3d %4d s\n' "$name" "$rc" $((SECONDS - t0)) >>"$work/summary.txt"
    pack; return $rc
}
[ -f "$root/.bundle/baseline.tar.gz" ] || { echo "gpu-node-ab.sh: no .bundle/baseline.tar.gz" >&2; exit 2; }
# Builds already made in this session (the same bundle, the same baseline
# archive) are kept, so several configs can be run one call each.
want=$(tar -xzOf "$root/.bundle/source.tar.gz" ./cmake/git-archive.txt 2>/dev/null ||
    tar -xzOf "$root/.bundle/source.tar.gz" cmake/git-archive.txt 2>/dev/null)
have=$(grep -o '"[0-9a-f]\{40\}"' "$root/build-gpu/generated/build_info.c" 2>/dev/null | head -1 | tr -d '"')
case $order in *B*)
    if [ -z "$want" ] || [ "$want" != "$have" ]; then
        step "build B" "$work/build-B.log" "$root/scripts/gpu-node-build.sh" || exit 1
    fi ;;
esac
sum=$(sha256sum "$root/.bundle/baseline.tar.gz" | cut -c1-64)
if [ -x "$old/build/permbench" ] && [ "$(cat "$old/archive.sha256" 2>/dev/null)" = "$sum" ]; then
    echo "build A: kept ($old/build)" >>"$work/summary.txt"
else
rm -rf "$old/src" "$old/build" && mkdir -p "$old/src"
tar -xzf "$root/.bundle/baseline.tar.gz" -C "$old/src" || exit 1
# PB_BUILD_FROM_TREE: the baseline's own tree. Without it, a baseline whose
# gpu-node-build.sh builds the bundle's source.tar.gz builds B's source a
# second time, and A's results name B's commit.
step "build A" "$work/build-A.log" env PB_BUILD_FROM_TREE=1 \
    "$old/src/scripts/gpu-node-build.sh" "$root/.bundle" /opt/permbench-deps "$old/build" ||
    step "build A (cmake)" "$work/build-A2.log" sh -c ". /opt/permbench-deps/env.sh 2>/dev/null;
        cmake -S '$old/src' -B '$old/build' -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
        cmake --build '$old/build' -j\$(nproc)" || exit 1
echo "$sum" >"$old/archive.sha256"
fi
# A must be the baseline's commit (its archive's export-subst file), never B's.
want_a=$(cat "$old/src/cmake/git-archive.txt" 2>/dev/null | grep -o '[0-9a-f]\{40\}' | head -1)
have_a=$(grep -o '"[0-9a-f]\{40\}"' "$old/build/generated/build_info.c" 2>/dev/null | head -1 | tr -d '"')
if [ -n "$want_a" ] && [ "$want_a" != "$have_a" ]; then
    echo "gpu-node-ab.sh: build A is commit ${have_a:-unknown}, not the baseline's $want_a" | tee -a "$work/summary.txt" >&2
    pack; exit 1
fi
[ -f /opt/permbench-deps/env.sh ] && . /opt/permbench-deps/env.sh
info_pb=$root/build-gpu/permbench
[ -x "$info_pb" ] || info_pb=$old/build/permbench
"$info_pb" info >"$work/info.txt" 2>&1; nvidia-smi >>"$work/info.txt" 2>&1
i=0
for w in $(echo "$order" | grep -o .); do
    i=$((i + 1))
    case $w in
        A) pb=$old/build/permbench src=$old/src ;;
        B) pb=$root/build-gpu/permbench src=$root/build-gpu-src ;;
        *) echo "gpu-node-ab.sh: ORDER is letters A and B, not '$w'" >&2; exit 2 ;;
    esac
    step "run $i-$w $(basename "$cfg")" "$work/$i-$w.log" "$pb" run "$src/$cfg" --out "$work/$i-$w"
done
pack
cp "$work/summary.txt" "$out/summary.txt"
[ "${PB_AB_KEEP:-}" = 1 ] || rm -rf "$work"
