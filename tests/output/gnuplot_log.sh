#!/usr/bin/env bash
# gnuplot's own warnings (one size gives "empty x range") stay off the
# user's terminal and land in DIR/gnuplot.log, under the figure they are about.
#   gnuplot_log.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
if ! command -v gnuplot >/dev/null && [ -z "${PERMBENCH_GNUPLOT:-}" ]; then echo "skipped: no gnuplot"; exit 77; fi
printf '[sweep]\nsizes = 2^10\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = throughput\n[cpu-fisher-yates]\n' >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$work/o" >"$work/out" 2>"$work/err" || { echo "FAIL: run exit $?"; cat "$work/err"; exit 1; }
# (A loaded test host adds permbench's own busy-machine warning: not gnuplot's.)
if grep -hv '^permbench: warning: the machine is busy' "$work/out" "$work/err" | grep -qi 'warning'; then
    echo "FAIL: gnuplot's warning reached the terminal"; cat "$work/err"; exit 1
fi
grep -A1 "^# $work/o/throughput.png$" "$work/o/gnuplot.log" | grep -q 'empty x range' ||
    { echo "FAIL: the warning is not in gnuplot.log under its figure"; cat "$work/o/gnuplot.log"; exit 1; }
[ -s "$work/o/throughput.png" ] && [ -s "$work/o/throughput.svg" ] || { echo "FAIL: no figure"; exit 1; }
# The figure names what it shows and where: family, item width, machine, commit.
grep -q "shuffle  |  8 B items  |  .*  |  permbench " "$work/o/throughput.svg" ||
    { echo "FAIL: the figure's subtitle does not name family, items, machine and commit"; exit 1; }
echo "ok: $(grep -c 'empty x range' "$work/o/gnuplot.log") warnings in gnuplot.log, none on the terminal"
