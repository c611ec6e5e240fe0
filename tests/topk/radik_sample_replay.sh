#!/usr/bin/env bash
# pb_radik_sample_replay (tests/topk/radik_sample_replay.c): on a row long
# enough to refine (2^25 fp16 keys of U[0, 1), k = 32) it prints the small
# sample's threshold and the refined one, each keeping at least k keys of
# the row and the refined one fewer than the small one, and where radik's
# tie_level acts (the refined threshold a level of fp16's few values),
# fewer again; a short fp32 row is not refined; bad arguments get one line
# and exit 2.
#   radik_sample_replay.sh REPLAY
set -u
replay=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$replay" 33554432 32 f16 uniform 2026 7 2>&1) || fail "exit $?: $out"
[ "$(grep -c '^seed ' <<<"$out")" -eq 2 ] || fail "not a line a seed: $out"
while read -r line; do
    keeps=$(grep -oE 'keeps [0-9]+' <<<"$line" | awk '{print $2}' | tr '\n' ' ')
    read -r k1 k2 k3 <<<"$keeps"
    [ -n "${k2:-}" ] || fail "no refined threshold: $line"
    [ "$k1" -ge 32 ] && [ "$k2" -ge 32 ] && [ "$k2" -lt "$k1" ] || fail "keeps $k1 then $k2: $line"
    [ -n "${k3:-}" ] || fail "tie level did not act on fp16's levels: $line"
    [ "$k3" -ge 32 ] && [ "$k3" -lt "$k2" ] || fail "tie level keeps $k3 after $k2: $line"
done <<<"$out"
out=$("$replay" 1048576 32 f32 normal 2026 2>&1) || fail "fp32 row: exit $?: $out"
grep -q 'keeps' <<<"$out" && ! grep -q 'refined' <<<"$out" || fail "a 2^20 row refined: $out"
for args in "10 32 f16 uniform" "33554432 32 f16 uniform x1" "33554432 32 f99 uniform 1" "33554432 32 f64 uniform 1"; do
    # shellcheck disable=SC2086 # the arguments are words
    out=$("$replay" $args 2>&1)
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] || fail "'$args': exit $rc: $out"
done
echo "ok: the replay's thresholds, and its refusals"
