#!/usr/bin/env bash
# Two runs at once:
#  - two processes on one --out: the second is refused at once (exit 2, one
#    line naming the other's pid) and the first finishes with its results;
#  - four runs without --out started together: four directories, each with
#    its own complete results (none lost to a shared timestamp).
#   run_concurrent.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; for f in "$work"/*.err; do echo "--- $f"; cat "$f"; done; exit 1; }
printf '[sweep]\nsizes = 2^14, 2^15, 2^16, 2^17\nmin_samples = 20\nmax_samples = 20\nmin_time = 0\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >slow.ini
"$pb" run slow.ini --out "$work/o" --quiet >a.out 2>a.err &
a=$!
for _ in $(seq 1 200); do [ -s "$work/o/.permbench.lock" ] && break; sleep 0.05; done
"$pb" run slow.ini --out "$work/o" --quiet >b.out 2>b.err
rc=$?
wait $a || fail "the first run failed: $?"
[ "$rc" = 2 ] || fail "the second run on one --out: exit $rc, want 2"
[ "$(wc -l <b.err)" = 1 ] || fail "the second run: not one line on stderr"
grep -q "^permbench: run: $work/o is in use by another permbench run (pid $a)$" b.err || fail "the second run's line"
python3 -c "import json,sys; j=json.load(open('$work/o/results.json')); sys.exit(j['summary']['rows'] != 4)" ||
    fail "the first run's results are not complete"

printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >quick.ini
pids=()
for i in 1 2 3 4; do "$pb" run quick.ini --quiet >q$i.out 2>q$i.err & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || fail "a run without --out failed"; done
dirs=$(find results/quick -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$dirs" = 4 ] || fail "$dirs result directories for 4 runs"
for d in results/quick/*/; do
    [ -f "$d/results.csv" ] && [ -f "$d/results.json" ] || fail "$d is incomplete"
done
echo "ok: second run on one --out refused, 4 simultaneous runs in 4 directories"
