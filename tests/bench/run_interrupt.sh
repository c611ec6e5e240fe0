#!/usr/bin/env bash
# SIGINT in the middle of a sweep, then --resume:
#  - the run prints one line on stderr, exits 130, and leaves a complete
#    results.json marked interrupted (finished rows, provenance) beside the
#    partial CSV, and no results.csv;
#  - a new run into that directory is refused (exit 2);
#  - `run --resume DIR` measures only the missing points, keeps the finished
#    rows as they were, and leaves a finished run (exit 0, results.csv, no
#    partial CSV, results.json not interrupted, every planned point).
#   run_interrupt.sh PERMBENCH [SIGNAL]
set -u
# Job control on: a background job of a shell without it ignores SIGINT.
set -m
pb=$1 sig=${2:-INT}
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; for f in "$work"/*.err "$work"/*.out; do echo "--- $f"; cat "$f"; done; exit 1; }
# Twelve points, each some tenths of a second: the signal lands mid-sweep.
printf '[sweep]\nsizes = 2^14, 2^15, 2^16, 2^17, 2^18, 2^19\nmin_samples = 20\nmax_samples = 20\nmin_time = 0\nplot = none\nceilings = none\n[cpu-fisher-yates]\n[cpu-gsl-shuffle]\n' >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$work/o" --only cpu-fisher-yates,cpu-gsl-shuffle -D sweep.min_samples=20 >"$work/run.out" 2>"$work/run.err" &
pid=$!
# Wait for two finished rows (header + 2 lines in the partial CSV).
for _ in $(seq 1 600); do
    [ -f "$work/o/results.partial.csv" ] && [ "$(wc -l <"$work/o/results.partial.csv")" -ge 3 ] && break
    sleep 0.05
done
kill -"$sig" "$pid"
wait "$pid"
rc=$?
want=130; [ "$sig" = TERM ] && want=143
[ "$rc" = "$want" ] || fail "exit status $rc after SIG$sig, want $want"
# The progress line, and the warning a busy machine (a loaded test host) adds.
grep -v -e '^progress' -e '^permbench: warning: the machine is busy' "$work/run.err" >"$work/lines.err"
[ "$(wc -l <"$work/lines.err")" = 1 ] || fail "not exactly one line on stderr"
grep -q "^permbench: interrupted (SIG$sig) after [0-9]* of 12 points; finish with 'permbench run --resume $work/o'$" \
    "$work/lines.err" || fail "the interrupted line"
[ ! -e "$work/o/results.csv" ] || fail "results.csv written by an interrupted run"
[ -f "$work/o/results.partial.csv" ] || fail "no partial CSV"
python3 - "$work/o/results.json" <<'PY' || fail "results.json of the interrupted run"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["summary"]
assert s["interrupted"] is True and s["points_planned"] == 12, s
assert 2 <= s["rows"] == len(j["results"]) < 12, s
assert j["provenance"]["git"]["commit"] and j["provenance"]["config"]["text"], "provenance"
assert j["provenance"]["only"] == "cpu-fisher-yates,cpu-gsl-shuffle"
assert j["provenance"]["defines"] == ["sweep.min_samples=20"]
assert all(r["status"] == "ok" and len(r["samples_ms"]) == 20 for r in j["results"])
json.dump(j["results"], open(sys.argv[1] + ".before", "w"))
PY
cp "$work/o/results.json" "$work/interrupted.json"
"$pb" plot "$work/o" >/dev/null 2>"$work/plot.err"
[ $? = 2 ] && grep -q "holds an interrupted run; finish it with 'permbench run --resume $work/o'" "$work/plot.err" ||
    fail "plot on the interrupted directory does not point to --resume"
"$pb" run "$work/c.ini" --out "$work/o" >"$work/again.out" 2>"$work/again.err"
[ $? = 2 ] || fail "a new run into the interrupted directory was not refused"
cmp -s "$work/o/results.json" "$work/interrupted.json" || fail "the refused run touched results.json"
"$pb" run --resume "$work/o" >"$work/resume.out" 2>"$work/resume.err" || fail "resume exit status $?"
[ -f "$work/o/results.csv" ] || fail "no results.csv after resume"
[ ! -e "$work/o/results.partial.csv" ] || fail "the partial CSV outlived the resume"
[ "$(wc -l <"$work/o/results.csv")" = 13 ] || fail "results.csv does not hold 12 rows"
python3 - "$work/o/results.json" "$work/o/results.json.before" <<'PY' || fail "results.json after resume"
import json, sys
j = json.load(open(sys.argv[1]))
before = json.load(open(sys.argv[2]))
s = j["summary"]
assert s["interrupted"] is False and s["rows"] == 12 == len(j["results"]), s
assert j["provenance"]["only"] == "cpu-fisher-yates,cpu-gsl-shuffle"
assert j["provenance"]["defines"] == ["sweep.min_samples=20"]
keys = {(r["label"], r["n"], r["item_bytes"]) for r in j["results"]}
assert len(keys) == 12, "a point twice or missing"
old = {(r["label"], r["n"], r["item_bytes"]): r["samples_ms"] for r in before}
for r in j["results"]:
    k = (r["label"], r["n"], r["item_bytes"])
    if k in old:
        assert r["samples_ms"] == old[k], "a finished row was measured again"
PY
echo "ok: SIG$sig -> exit $rc, $(python3 -c "import json;print(json.load(open('$work/interrupted.json'))['summary']['rows'])") rows kept, resume finished 12"
