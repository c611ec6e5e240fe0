#!/usr/bin/env bash
# permbench plot takes a run's results.json as well as its directory (as
# compare does), and redraws the figures into that directory.
#   plot_results_file.sh PERMBENCH
set -u
pb=$1
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat "$work"/*.err 2>/dev/null; exit 1; }
printf '[sweep]\nsizes = 100, 1000\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nceilings = none\nplot = throughput\n[cpu-fisher-yates]\n' >c.ini
"$pb" run c.ini --out o --quiet >/dev/null 2>run.err || fail "run: exit $?"
rm -f o/throughput.png o/throughput.svg
"$pb" plot o/results.json >plot.out 2>plot.err || fail "plot o/results.json: exit $?"
[ -s o/throughput.png ] && [ -s o/throughput.svg ] || fail "no figure redrawn in o/"
(cd o && "$pb" plot results.json >/dev/null 2>../plot2.err) || fail "plot results.json in its directory: exit $?"
echo ok
