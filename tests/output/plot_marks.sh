#!/usr/bin/env bash
# Figures mark the rows a reader should not take at face value: a noisy
# row's point drawn again as an open circle, with a key entry saying what
# noisy means; a figure with no noisy row has neither. The run's
# results.csv is rewritten to say which rows are noisy (a real run's noise
# is the machine's to choose), then `permbench plot` redraws from it.
#   plot_marks.sh PERMBENCH
set -u
for tool in gnuplot python3; do
    command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; cat "$work"/*.err 2>/dev/null; exit 1; }
cd "$work" || fail "no work directory"
printf '[sweep]\nsizes = 100, 1000\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nflush_cache = no\nplot = throughput, pct-copy, latency\n[cpu-fisher-yates]\n[cpu-gsl-shuffle]\n' >c.ini
"$pb" run c.ini --out o --quiet >/dev/null 2>run.err || fail "run: exit $?"
# set_noisy [LABEL N]: every row's noisy, multimodal and busy "no", but
# LABEL's at N noisy.
set_noisy() {
    python3 - o/results.csv "$@" <<'PY'
import csv, sys
path, want = sys.argv[1], tuple(sys.argv[2:4])
rows = list(csv.reader(open(path, newline="")))
head = rows[0]
for r in rows[1:]:
    for k in ("noisy", "multimodal", "busy"):
        r[head.index(k)] = "no"
    if (r[head.index("label")], r[head.index("n")]) == want:
        r[head.index("noisy")] = "yes"
with open(path, "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
}
# marks KIND: the points of each figure's plot titled "noisy ...", less the
# key's own sample ("-" when the figure has no such plot).
marks() {
    python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
for m in re.finditer(r'<g id="gnuplot_plot_\d+" ><title>([^<]*)</title>(.*?)(?=<g id="gnuplot_plot_|\Z)', s, re.S):
    if m.group(1).startswith("noisy (95% CI of median wider than max_noise)"):
        print(len(re.findall(r"<use xlink:href='#gpPt", m.group(2))) - 1)
        break
else:
    print("-")
PY
}
set_noisy || fail "cannot rewrite results.csv"
"$pb" plot o >/dev/null 2>plot.err || fail "plot: exit $?"
for k in throughput pct-copy latency; do
    [ "$(marks o/$k.svg)" = - ] || fail "$k.svg marks noisy rows where there are none"
done
set_noisy cpu-gsl-shuffle 1000 || fail "cannot rewrite results.csv"
"$pb" plot o >/dev/null 2>plot.err || fail "plot: exit $?"
for k in throughput pct-copy latency; do
    [ "$(marks o/$k.svg)" = 1 ] || fail "$k.svg marks $(marks o/$k.svg) noisy points, expected 1"
done
echo "ok: the noisy row marked, and only where there is one"
