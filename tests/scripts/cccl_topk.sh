#!/usr/bin/env bash
# Where gpu-cub-topk's CCCL comes from (cmake/cccl_topk.cmake): PB_CCCL_ROOT in
# each layout it may have (a CCCL checkout, one include folder, an install
# prefix), with its version read from cub/version.cuh; else the toolkit's
# include folders (and their cccl/); else the one-line reason the module
# shows, naming the header, the CCCL that was found and PB_CCCL_ROOT. And
# scripts/bundle-cccl.sh (offline-bundle.sh --cccl): the headers copied into
# one flat include folder the detection finds, a root without them refused
# in one line with nothing written.
#   cccl_topk.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find_cccl() { cmake "$@" -P "$src/cmake/cccl_topk.cmake" 2>&1; }
bad=0
expect() { # expect WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; bad=1; else echo "ok $1"; fi
}
cub() { # cub DIR VERSION [topk]: a cub/ include folder at DIR
    mkdir -p "$1/cub/device"
    printf '#pragma once\n#define CUB_VERSION %s // one value\n' "$2" >"$1/cub/version.cuh"
    if [ "${3:-}" = topk ]; then : >"$1/cub/device/device_topk.cuh"; fi
}
cub "$tmp/checkout/cub" 300500 topk
expect "a CCCL checkout" "$(find_cccl -DROOT="$tmp/checkout")" \
    "found 3.5.0 $tmp/checkout/cub;$tmp/checkout/thrust;$tmp/checkout/libcudacxx/include"
cub "$tmp/flat" 300600 topk
expect "one include folder" "$(find_cccl -DROOT="$tmp/flat")" "found 3.6.0 $tmp/flat"
cub "$tmp/prefix/include" 300301 topk
expect "an install prefix" "$(find_cccl -DROOT="$tmp/prefix")" "found 3.3.1 $tmp/prefix/include"
cub "$tmp/old" 300001
expect "a root without the header" "$(find_cccl -DROOT="$tmp/old" -DTOOLKIT="$tmp/flat")" \
    "missing needs CCCL 3.3+ headers with cub/device/device_topk.cuh, and PB_CCCL_ROOT = $tmp/old has none"
cub "$tmp/tk/cccl" 300001
expect "the toolkit's older CCCL" "$(find_cccl -DTOOLKIT="$tmp/tk")" \
    "missing needs CCCL 3.3+ headers with cub/device/device_topk.cuh, the toolkit has CCCL 3.0.1: set PB_CCCL_ROOT"
expect "no CCCL at all" "$(find_cccl -DTOOLKIT="$tmp/nothing")" \
    "missing needs CCCL 3.3+ headers with cub/device/device_topk.cuh, the toolkit has no CCCL: set PB_CCCL_ROOT"
cub "$tmp/tk2/cccl" 300500 topk
expect "the toolkit's own: nothing to add" "$(find_cccl -DTOOLKIT="$tmp/tk2")" "found 3.5.0 "
# The bundle: a checkout's headers flat in OUT/cccl, found there as one folder.
mkdir -p "$tmp/checkout/thrust/thrust" "$tmp/checkout/libcudacxx/include/cuda/std" "$tmp/checkout/libcudacxx/include/nv"
: >"$tmp/checkout/thrust/thrust/sort.h"
: >"$tmp/checkout/libcudacxx/include/cuda/std/version"
mkdir -p "$tmp/checkout/cub/test" && : >"$tmp/checkout/cub/test/not_a_header.cu"
out=$(bash "$src/scripts/bundle-cccl.sh" "$tmp/checkout" "$tmp/b" 2>&1)
expect "bundle: exit" "$?" 0
case "$out" in "cccl: $tmp/b/cccl = CCCL 3.5.0 from $tmp/checkout ("*" MiB)") echo "ok bundle: its line" ;;
*) echo "FAIL bundle: its line: '$out'"; bad=1 ;; esac
expect "bundle: flat" "$(cd "$tmp/b/cccl" && find . -type f | LC_ALL=C sort | tr '\n' ' ')" \
    "./cub/device/device_topk.cuh ./cub/version.cuh ./cuda/std/version ./thrust/sort.h "
expect "bundle: found as one folder" "$(find_cccl -DROOT="$tmp/b/cccl")" "found 3.5.0 $tmp/b/cccl"
err=$(bash "$src/scripts/bundle-cccl.sh" "$tmp/old" "$tmp/b2" 2>&1 >/dev/null)
expect "bundle: a root without the header, exit" "$?" 2
expect "bundle: its one line" "$err" \
    "bundle-cccl.sh: error: $tmp/old: needs CCCL 3.3+ headers with cub/device/device_topk.cuh, and PB_CCCL_ROOT = $tmp/old has none"
expect "bundle: nothing written" "$(ls -A "$tmp/b2" 2>/dev/null)" ""
exit $bad
