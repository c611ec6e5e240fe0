#!/usr/bin/env bash
# scripts/setup.sh's first job, sized to the machine: its plan (--dry-run)
# is at most 4 sizes a module, up to 2^22 items without a GPU (2^24 with
# one), each point cut off after a second, so 60-odd points stay near a
# minute on two cores.
#   setup_first_job.sh PERMBENCH SOURCE_DIR
set -u
pb=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat "$work/out" "$work/err"; exit 1; }
PB_PERMBENCH=$pb bash "$src/scripts/setup.sh" --first-job --dry-run >out 2>err || fail "exit $?"
grep -q '^setup.sh: a first look sized to this machine' out || fail "no first-look line"
top=2^22
if "$pb" info --json | grep -q '"present": true'; then top=2^24; fi
grep -q "sizes 2^1[02] .. $top \*16" out || fail "not the sizes for this machine (up to $top)"
points=$(sed -n 's/^\([0-9]*\) points: .*every point to its 1 s timeout.*/\1/p' out)
[ -n "$points" ] || fail "no total line with a 1 s timeout"
max=$(( $("$pb" list --json | python3 -c 'import json,sys; print(sum(m["family"]=="shuffle" for m in json.load(sys.stdin)["modules"]))') * 4 ))
[ "$points" -le "$max" ] || fail "$points points, more than 4 sizes a shuffle module ($max)"
[ ! -e results ] || fail "the dry run wrote results/"
echo "ok: $points points, sizes up to $top"
