#!/usr/bin/env bash
# -D SECTION.KEY=VALUE and --dry-run:
#  - -D replaces a key (sizes) and adds one (ceilings), the rows follow it,
#    and results.json records the overrides;
#  - --dry-run lists every point of the plan with an estimate and a total,
#    exits 0 and writes nothing.
#   run_options.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat "$work"/*.err 2>/dev/null; exit 1; }
printf '[sweep]\nsizes = 2^20\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = none\n[cpu-fisher-yates]\n' >c.ini
"$pb" run c.ini -D sweep.sizes=100,200 -D sweep.ceilings=none --out o --quiet >/dev/null 2>d.err || fail "run with -D: exit $?"
python3 - <<'PY' || fail "results.json after -D"
import json
j = json.load(open("o/results.json"))
rows = [(r["label"], r["n"]) for r in j["results"]]
assert rows == [("cpu-fisher-yates", 100), ("cpu-fisher-yates", 200)], rows
assert j["provenance"]["defines"] == ["sweep.sizes=100,200", "sweep.ceilings=none"]
PY
"$pb" run c.ini --dry-run -D sweep.sizes=100,200,300 >dry.out 2>dry.err || fail "dry run: exit $?"
[ ! -e results ] || fail "the dry run wrote results/"
# cpu-fisher-yates, cpu-copy and cpu-gather (the ceilings) at three sizes.
[ "$(grep -c '^\(cpu-fisher-yates\|cpu-copy\|cpu-gather\) ' dry.out)" = 9 ] || fail "the dry run does not list 9 points"
grep -q '^9 points: about .*, at most about .*timeout)$' dry.out || fail "the dry run gives no total"
# list --json: every module of `list --brief`, as JSON.
"$pb" list --json >list.json 2>list.err || fail "list --json: exit $?"
python3 - "$("$pb" list --brief | awk 'NR > 1 && $1 !~ /^\(/ {print $1}' | tr '\n' ' ')" <<'PY' || fail "list --json"
import json, sys
j = json.load(open("list.json"))
assert j["schema_version"] == 1 and "shuffle" in j["families"]
names = [m["name"] for m in j["modules"]]
assert names == sys.argv[1].split(), (names, sys.argv[1])
fy = next(m for m in j["modules"] if m["name"] == "cpu-fisher-yates")
assert fy["device"] == "cpu" and fy["available"] is True and fy["family"] == "shuffle"
PY
echo "ok: -D applied and recorded; list --json; $(tail -1 dry.out)"
