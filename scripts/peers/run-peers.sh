#!/usr/bin/env bash
# run-peers.sh OUT RESULT_DIR... - the PyTorch, CuPy and JAX peers of finished
# permbench runs, on the GPU they ran on (scripts/peers/README.md). For each
# RESULT_DIR, named NAME after its last component:
#
#   OUT/NAME-peers/       the peers at the run's points (peers.py run --like)
#   OUT/NAME-with-peers/  the run's rows and the peers' in one directory
#                         (peers.py merge), its figures drawn by permbench plot
#   OUT/NAME-vs-peers/    permbench compare of each peer, relabelled as the
#                         module it stands beside, against the run
#                         (NEW/BASE = ours/peer; FASTER: ours is faster)
#
# Environment: PERMBENCH, the permbench binary (default: build-gpu/permbench,
# else build/permbench, beside this script's tree); PYTHON (python3);
# PEERS_ARGS, more arguments for `peers.py run` (say "--set max_samples=200").
# PEERS_SYNTHETIC=1 makes up the times (tests/scripts/peers.sh: no GPU there).
# PEERS_REUSE=1 takes peers already timed in OUT/NAME-peers/ (say on a GPU
# node whose call had no time left for the figures) and only merges, draws
# and compares them here.
# Exit status: 0 when every step ran, or peers.py had nothing to do (no torch,
# cupy nor jax, a family without peers: its one line is printed); 1 when a
# step failed or a peer row failed its check; 2 for bad input.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-}
[ -n "$out" ] && [ $# -ge 2 ] || { echo "usage: run-peers.sh OUT RESULT_DIR..." >&2; exit 2; }
shift
py=${PYTHON:-python3}
pb=${PERMBENCH:-}
if [ -z "$pb" ]; then
    for b in "$root/build-gpu/permbench" "$root/build/permbench"; do [ -x "$b" ] && { pb=$b; break; }; done
fi
[ -n "$pb" ] && [ -x "$pb" ] || { echo "run-peers.sh: no permbench binary (set PERMBENCH)" >&2; exit 2; }
command -v "$py" >/dev/null || { echo "run-peers.sh: $py not found; peers skipped" >&2; exit 0; }
mkdir -p "$out" || exit 2
synthetic=() allow=()
[ "${PEERS_SYNTHETIC:-}" = 1 ] && synthetic=(--synthetic) allow=(--allow-synthetic)

# PEER_SERIES=OUR_SERIES pairs for compare; peers.py relabel --against keeps
# those whose series are in both runs, and --by-params adds, for top-k, each
# distribution's peer series paired with ours on the same problem (dist,
# dtype, rows, largest, sorted output), whatever the sections are called.
pairs_topk="torch-topk=gpu-radik torch-topk-narrow128=radik-narrow128 torch-sort=gpu-sort-and-choose
            torch-sort-narrow128=sort-and-choose-narrow128"
pairs_shuffle="torch-randperm-index=bijective2-varphilox torch-sort-shuffle=gpu-sort-shuffle
               cupy-shuffle=gpu-thrust-shuffle"

status=0
worse() { [ "$1" -gt "$status" ] && status=$1; }
for dir in "$@"; do
    name=$(basename "$(cd "$dir" 2>/dev/null && pwd || echo "$dir")")
    peers=$out/$name-peers merged=$out/$name-with-peers vs=$out/$name-vs-peers
    echo "== $name: peers at the points of $dir"
    if [ "${PEERS_REUSE:-}" = 1 ] && [ -f "$peers/results.json" ]; then
        echo "== $name: peers taken from $peers (PEERS_REUSE)"
        rc=0
    else
        # shellcheck disable=SC2086 # PEERS_ARGS is split on purpose
        "$py" "$here/peers.py" run --like "$dir" --out "$peers" "${synthetic[@]}" ${PEERS_ARGS:-}
        rc=$?
    fi
    case $rc in
    0) ;;
    77) echo "== $name: no peer ran (the line above says why)"; continue ;;
    1) echo "== $name: a peer row failed (listed above); merged all the same"; worse 1 ;;
    130) echo "== $name: interrupted"; exit 130 ;;
    *) worse 2; continue ;;
    esac
    "$pb" plot "$peers" || worse 1
    echo "== $name: merged into $merged"
    if "$py" "$here/peers.py" merge "$dir" "$peers" "$merged" "${allow[@]}"; then
        "$pb" plot "$merged" || worse 1
    else
        worse 1
    fi
    family=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["sweep"]["family"])' "$peers/results.json")
    by=()
    case $family in
    topk) pairs=$pairs_topk by=(--by-params torch-topk=gpu-radik --by-params torch-topk-sorted=gpu-radik
                                --by-params torch-sort=gpu-sort-and-choose) ;;
    shuffle) pairs=$pairs_shuffle ;;
    *) pairs="" ;;
    esac
    [ -n "$pairs" ] || continue
    # shellcheck disable=SC2086 # one pair a word
    "$py" "$here/peers.py" relabel "$peers" "$out/.$name-relabelled" $pairs --against "$dir" "${by[@]}"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "== $name: permbench compare, BASE the peers (as our series), NEW the run"
        "$pb" compare "$out/.$name-relabelled" "$dir" --out "$vs" || worse 1
        mv "$out/.$name-relabelled/results.json" "$vs/peers-relabelled.json" 2>/dev/null
        rm -rf "$out/.$name-relabelled"
    elif [ $rc -ne 77 ]; then
        worse 1
    fi
done
exit "$status"
