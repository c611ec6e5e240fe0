#!/usr/bin/env bash
# SIGINT (or SIGTERM) in the middle of `permbench quality`, then --resume:
#  - the run prints one line, exits 130 (143), leaves quality.json marked
#    interrupted with the finished rows and its --only and -D, keeps
#    quality.partial.csv, writes no quality.csv, and releases its lock;
#  - a new run into the directory is refused, pointing to `quality --resume`;
#  - `quality --resume DIR` draws only the (instance, n) without rows and
#    finishes: quality.csv equals an uninterrupted run's, every column but
#    the seconds.
#   quality_resume.sh PERMBENCH [SIGNAL]
set -u
set -m # a background job of a shell without job control ignores SIGINT
pb=$1 sig=${2:-INT}
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/stopping.sh"
# Three instances, two of them run, at three n each (eight results): six
# groups of about a
# second.
printf '[quality]\nseed = 3\nalpha = 0.0001\nchisq = 5, 6\nchisq_samples = 10^6\nmmd = 100\nmmd_samples = 4000\nplot = none\n[cpu-fisher-yates]\n[cpu-gsl-shuffle]\n[cpu-merge-shuffle]\n' >"$work/q.ini"
opts=(--only cpu-fisher-yates,cpu-merge-shuffle -D quality.seed=11)
"$pb" quality "$work/q.ini" --out "$work/o" "${opts[@]}" --quiet >"$work/run.out" 2>"$work/run.err" &
pid=$!
# Stopped after the first finished group (the header and a row).
stop_when "$work/o/quality.partial.csv" 2 "$sig" "$pid"
want=130; [ "$sig" = TERM ] && want=143
[ "$rc" = "$want" ] || fail "exit status $rc after SIG$sig, want $want"
[ "$(wc -l <"$work/run.err")" = 1 ] &&
    grep -q "^permbench: interrupted (SIG$sig) after [0-9]* test results; finish with 'permbench quality --resume $work/o'$" "$work/run.err" ||
    fail "the interrupted line"
[ ! -e "$work/o/quality.csv" ] || fail "quality.csv written by an interrupted run"
[ -f "$work/o/quality.partial.csv" ] || fail "no partial CSV"
[ ! -s "$work/o/.permbench.lock" ] || fail "the lock was not released"
python3 - "$work/o/quality.json" <<'PY' || fail "quality.json of the interrupted run"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["summary"]["interrupted"] is True, j["summary"]
assert 1 <= len(j["rows"]) < 8, len(j["rows"])
p = j["provenance"]
assert p["only"] == "cpu-fisher-yates,cpu-merge-shuffle" and p["defines"] == ["quality.seed=11"], (p["only"], p["defines"])
PY
"$pb" quality "$work/q.ini" --out "$work/o" --quiet >"$work/again.out" 2>"$work/again.err"
[ $? = 2 ] && grep -q "holds an interrupted run; finish it with 'permbench quality --resume $work/o'" "$work/again.err" ||
    fail "a new run into the interrupted directory was not refused towards quality --resume"
"$pb" quality --resume "$work/o" >"$work/resume.out" 2>"$work/resume.err" || fail "resume exit status $?"
[ -f "$work/o/quality.csv" ] && [ ! -e "$work/o/quality.partial.csv" ] || fail "the resume did not finish the directory"
grep -q "(resumed)" "$work/resume.out" || fail "the resume does not say so"
"$pb" quality "$work/q.ini" --out "$work/ref" "${opts[@]}" --quiet >"$work/ref.out" 2>"$work/ref.err" || fail "the reference run"
cut -d, -f1-16 "$work/o/quality.csv" >"$work/resumed.csv"
cut -d, -f1-16 "$work/ref/quality.csv" >"$work/reference.csv"
cmp -s "$work/resumed.csv" "$work/reference.csv" || { diff "$work/resumed.csv" "$work/reference.csv"; fail "the resumed results differ from an uninterrupted run's"; }
python3 - "$work/o/quality.json" <<'PY' || fail "quality.json after resume"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["summary"]["interrupted"] is False and len(j["rows"]) == 8, j["summary"]
assert j["provenance"]["defines"] == ["quality.seed=11"]
PY
echo "ok: SIG$sig -> exit $rc; quality --resume finished the run as an uninterrupted one"
