#!/usr/bin/env bash
# The architectures a build holds when none is asked for
# (cmake/cuda_archs.cmake): a given list as it is; else each visible GPU's
# (the device query's answer); else, with no GPU or no query tool, the
# release list, Turing to Blackwell with PTX of the newest; and the SASS and
# PTX lists that provenance names.
#   cuda_archs.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
archs() { cmake "$@" -P "$src/cmake/cuda_archs.cmake" 2>&1; }
bad=0
expect() { # expect WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; bad=1; else echo "ok $1"; fi
}
printf '#!/bin/sh\necho 90\n' >"$tmp/one"
printf '#!/bin/sh\necho "86;90"\necho 86\n' >"$tmp/two"
printf '#!/bin/sh\necho "no CUDA-capable device" >&2\nexit 1\n' >"$tmp/none"
chmod +x "$tmp"/one "$tmp"/two "$tmp"/none
release="75-real;80-real;86-real;89-real;90-real;100-real;120 | sass 75,80,86,89,90,100,120 | ptx 120"
expect "one GPU: native" "$(archs -DQUERY="$tmp/one")" "90 | sass 90 | ptx 90"
expect "two kinds of GPU: both, once each" "$(archs -DQUERY="$tmp/two")" "86;90 | sass 86,90 | ptx 86,90"
expect "no GPU: the release list" "$(archs -DQUERY="$tmp/none")" "$release"
expect "no query tool: the release list" "$(archs -DQUERY="$tmp/missing")" "$release"
expect "a given list wins" "$(archs -DQUERY="$tmp/one" -DEXPLICIT="75-virtual;80-virtual")" \
    "75-virtual;80-virtual | sass  | ptx 75,80"
expect "one architecture for development" "$(archs -DQUERY="$tmp/none" -DEXPLICIT=90)" "90 | sass 90 | ptx 90"
expect "CMake's words" "$(archs -DQUERY="$tmp/none" -DEXPLICIT=native)" "native | sass native | ptx "
exit $bad
