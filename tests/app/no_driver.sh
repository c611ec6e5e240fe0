#!/usr/bin/env bash
# On a machine with no CUDA driver, a CUDA build says so in plain words
# (the runtime's own "driver version is insufficient" misleads).
#   no_driver.sh PERMBENCH
set -u
pb=$1
out=$("$pb" list --brief 2>&1)
echo "$out" | grep -q '^gpu-copy ' || { echo "skipped: built without CUDA"; exit 77; }
echo "$out" | grep -q '^gpu-copy .* yes ' && { echo "skipped: a GPU is present"; exit 77; }
echo "$out" | grep -q 'insufficient' && { echo "FAIL: $out"; exit 1; }
echo "$out" | grep -q 'no CUDA device' || { echo "FAIL: no reason given: $out"; exit 1; }
echo "ok: $(echo "$out" | grep -m1 'no CUDA device')"
