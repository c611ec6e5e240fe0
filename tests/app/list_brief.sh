#!/usr/bin/env bash
# permbench list --brief: one line a module (an unavailable one's reason at
# its end, not on a line of its own), every column starting at the same
# place whatever the length of the names.
#   list_brief.sh PERMBENCH
set -u
pb=$1
out=$("$pb" list --brief) || { echo "FAIL: exit $?"; exit 1; }
n=$("$pb" list --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["modules"]))') || exit 1
lines=$(($(printf '%s\n' "$out" | wc -l) - 1))
[ "$lines" -eq "$n" ] || { echo "FAIL: $lines lines for $n modules:"; echo "$out"; exit 1; }
# The family column: where the header's "family" starts, every line has a
# blank before it and a word starting there.
col=$(printf '%s\n' "$out" | head -1 | awk '{print index($0, "family")}')
bad=$(printf '%s\n' "$out" | tail -n +2 | awk -v c="$col" \
    'substr($0, c - 1, 1) != " " || substr($0, c, 1) == " " {print}')
[ -z "$bad" ] || { echo "FAIL: misaligned (family column at $col):"; echo "$bad"; exit 1; }
echo "ok: $n modules, one line each, aligned"
