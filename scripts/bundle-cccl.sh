#!/usr/bin/env bash
# bundle-cccl.sh ROOT OUTDIR - copy the CCCL headers gpu-cub-topk needs
# (cub/device/device_topk.cuh, CCCL 3.3+) from ROOT, laid out as
# PB_CCCL_ROOT may be (cmake/cccl_topk.cmake), into OUTDIR/cccl/ as one flat
# include folder: cub/, thrust/, cuda/, nv/ (the headers, not CCCL's tests).
# offline-bundle.sh --cccl calls it; gpu-node-build.sh then configures with
# PB_CCCL_ROOT=BUNDLE/cccl. OUTDIR/cccl is replaced only once the copy is
# whole. Exit 0 done (one line: what and how big), 2 bad input (one line).
set -Eeuo pipefail
PROG=${0##*/}
die() { echo "$PROG: error: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: $PROG ROOT OUTDIR"
root=$1 out=$2
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v cmake >/dev/null || die "cmake is needed to find the headers in $root"
found=$(cmake -DROOT="$root" -P "$REPO/cmake/cccl_topk.cmake" 2>&1)
case "$found" in
  "found "*) ;;
  *) die "$root: ${found#missing }" ;;
esac
read -r _ version incs <<<"$found"
mkdir -p "$out" || die "cannot create $out"
work=$(mktemp -d "$out/.cccl.XXXXXX")
trap 'rm -rf "$work"' EXIT
IFS=';' read -r -a dirs <<<"$incs"
for d in "${dirs[@]}"; do
  for sub in cub thrust cuda nv; do
    if [ -d "$d/$sub" ]; then cp -R "$d/$sub" "$work/"; fi
  done
done
[ -f "$work/cub/device/device_topk.cuh" ] || die "$root: no cub/device/device_topk.cuh was copied"
rm -rf "$out/cccl"
mv "$work" "$out/cccl"
echo "cccl: $out/cccl = CCCL $version from $root ($(du -sm "$out/cccl" | cut -f1) MiB)"
