#!/usr/bin/env bash
# Packs committed runs: every plain results.json under the given folders
# (default results/reference) becomes results.json.gz beside it (gzip -9n:
# no name or time stamp in the header, so the same JSON packs to the same
# bytes). A results.json with its per-sample timings is ~10x its gzip, and
# the tracked tree must fit the 64 MiB a lent GPU machine takes with it;
# permbench compare and plot and scripts/peers/peers.py read either form.
# Run it before committing new reference runs, then stage the folder
# (`git add -- DIR` stages the removed results.json too).
#
#   scripts/pack-reference.sh [DIR...]
#
# Each file is written under a temporary name, tested, renamed over any
# older .gz, and only then is the plain file removed: a run cut short
# leaves at worst both forms (readers take the plain one first), and a
# second run finishes it. Nothing is left to pack: nothing is done.
#
# A figure drawn from the run's own results (an <name>.svg beside
# <name>.png and the results.json) keeps its PNG only: `permbench plot DIR`
# draws the SVG again from results.json.gz, and an SVG is larger than its
# PNG (results/ must stay under 15 MiB).
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
esac
[ $# -gt 0 ] || set -- "$root/results/reference"

tmp=""
trap '[ -z "$tmp" ] || rm -f "$tmp"' EXIT
packed=0 before=0 after=0 svgs=0 svg_bytes=0
for dir in "$@"; do
    [ -d "$dir" ] || { echo "pack-reference.sh: $dir: no such folder" >&2; exit 2; }
    while IFS= read -r -d '' f; do
        before=$((before + $(stat -c %s -- "$f")))
        tmp="$f.gz.tmp.$$"
        gzip -9n -c -- "$f" >"$tmp"
        gzip -t -- "$tmp"
        mv -f -- "$tmp" "$f.gz"
        tmp=""
        rm -f -- "$f"
        packed=$((packed + 1))
        after=$((after + $(stat -c %s -- "$f.gz")))
    done < <(find "$dir" -type f -name results.json -print0)
    while IFS= read -r -d '' f; do
        d=$(dirname -- "$f")
        [ -f "${f%.svg}.png" ] && [ -f "$d/results.json.gz" ] || continue
        svg_bytes=$((svg_bytes + $(stat -c %s -- "$f")))
        rm -f -- "$f"
        svgs=$((svgs + 1))
    done < <(find "$dir" -type f -name '*.svg' -print0)
done
if [ "$packed" -eq 0 ] && [ "$svgs" -eq 0 ]; then
    echo "pack-reference.sh: no plain results.json or redrawable SVG under $*"
else
    echo "pack-reference.sh: packed $packed results.json ($before -> $after bytes), removed $svgs SVG figures ($svg_bytes bytes; permbench plot DIR draws them); stage with git add -- $*"
fi
