#!/usr/bin/env bash
# A run killed with SIGKILL (as the OOM killer kills) in the middle of a
# sweep, then --resume:
#  - the killed run leaves journal.jsonl with its finished rows; a new run
#    into the directory is refused, pointing to --resume;
#  - a resume given a config that is not the recorded one is refused (one
#    line, exit 2), touching nothing;
#  - the first claim after the kill takes the dead run's lock over with a
#    one-line note naming its pid;
#  - `run --resume DIR` (a torn line appended, as a run killed mid-write
#    leaves), given the recorded config, measures
#    only the missing points and finishes (exit 0): every row the killed run
#    finished is in results.json as the journal held it, samples and
#    statistics alike; no journal or partial CSV is left.
#   run_resume_kill.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/stopping.sh"
# Ten points, each some tenths of a second: the kill lands mid-sweep.
printf '[sweep]\nsizes = 2^14, 2^15, 2^16, 2^17, 2^18\nmin_samples = 12\nmax_samples = 12\nmin_time = 0\nflush_cache = no\nplot = none\nceilings = none\n[cpu-fisher-yates]\n[cpu-gsl-shuffle]\n' >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$work/o" -D sweep.min_samples=12 --quiet >"$work/run.out" 2>"$work/run.err" &
pid=$!
# Killed after three finished rows (the header and three lines in the
# journal, or in the partial CSV of a permbench without one).
stop_when "$work/o/journal.jsonl $work/o/results.partial.csv" 4 KILL "$pid"
[ -f "$work/o/journal.jsonl" ] || fail "no journal.jsonl after SIGKILL"
[ ! -e "$work/o/results.json" ] || fail "the killed run wrote results.json"
kept=$(rows rows "$work/o/journal.jsonl" "$work/before.json") || fail "the journal does not read"
[ "$kept" -ge 3 ] && [ "$kept" -lt 10 ] || fail "$kept rows journaled, want 3 to 9"
"$pb" run "$work/c.ini" --out "$work/o" --quiet >"$work/again.out" 2>"$work/again.err"
[ $? = 2 ] && grep -q "holds an interrupted run; finish it with 'permbench run --resume $work/o'" "$work/again.err" ||
    fail "a new run into the killed run's directory was not refused towards --resume"
# The first to claim the directory after the kill finds the lock free (the
# kernel dropped it) but still naming the dead run: it says so.
grep -q "^permbench: note: taking over $work/o/.permbench.lock, left by pid $pid (no longer running)$" "$work/again.err" ||
    fail "no note on taking the dead run's lock over"
# A config that is not the recorded one.
sed 's/max_samples = 12/max_samples = 30/' "$work/c.ini" >"$work/edited.ini"
cp "$work/o/journal.jsonl" "$work/journal.copy"
"$pb" run --resume "$work/o" "$work/edited.ini" >"$work/edited.out" 2>"$work/edited.err"
[ $? = 2 ] || fail "resume with another config: not exit 2"
[ "$(wc -l <"$work/edited.err")" = 1 ] &&
    grep -q "^permbench: run: --resume $work/o: $work/edited.ini is not the config the run recorded" "$work/edited.err" ||
    fail "resume with another config: the line"
cmp -s "$work/o/journal.jsonl" "$work/journal.copy" || fail "the refused resume touched the journal"
# Killed in the middle of writing a line: a torn last line.
printf '{"label":"cpu-gsl-shuffle","module":"gsl-shu' >>"$work/o/journal.jsonl"
"$pb" run --resume "$work/o" "$work/c.ini" --quiet >"$work/resume.out" 2>"$work/resume.err" || fail "resume exit status $?"
# The refused run released the lock in order: no second note. (A loaded
# test host adds the busy-machine warning, which is not a complaint.)
sed -i '/^permbench: warning: the machine is busy/d' "$work/resume.err"
! grep -q "^permbench:" "$work/resume.err" || fail "the resume complained"
[ -f "$work/o/results.csv" ] && [ "$(wc -l <"$work/o/results.csv")" = 11 ] || fail "results.csv does not hold 10 rows"
[ ! -e "$work/o/journal.jsonl" ] && [ ! -e "$work/o/results.partial.csv" ] || fail "the journal or partial CSV outlived the resume"
rows complete "$work/o/results.json" 10 || fail "results.json is not the finished run"
rows kept "$work/before.json" "$work/o/results.json" || fail "a row the killed run finished changed"
python3 - "$work/o/results.json" <<'PY' || fail "the recorded options"
import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
assert p["defines"] == ["sweep.min_samples=12"], p["defines"]
PY
echo "ok: SIGKILL after $kept rows; resume kept them bit for bit and finished 10"
