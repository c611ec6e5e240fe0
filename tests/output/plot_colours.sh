#!/usr/bin/env bash
# One colour per module across the figures of a run: the gnuplot scripts
# colour a label by its place among all the run's labels, so pct-copy (which
# leaves the copy out) and latency (two lines a label) give each module the
# colour throughput gives it, and two modules never share one. Read from the
# SVGs gnuplot writes: each plot's title, then its first stroke colour.
#   plot_colours.sh PERMBENCH
set -u
pb=$1
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
printf '[sweep]\nsizes = 100, 1000\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nflush_cache = no\nplot = throughput, pct-copy, latency\n[cpu-fisher-yates]\n[cpu-gsl-shuffle]\n[cpu-rao-sandelius]\n' >c.ini
"$pb" run c.ini --out o --quiet >/dev/null 2>run.err || { echo "FAIL: run: exit $?"; cat run.err; exit 1; }
python3 - o <<'PY'
import re, sys
d = sys.argv[1]
def colours(kind):
    s = open(f"{d}/{kind}.svg").read()
    out = {}
    for m in re.finditer(r'<g id="gnuplot_plot_\d+" ><title>([^<]*)</title>(.*?)(?=<g id="gnuplot_plot_|\Z)', s, re.S):
        c = re.search(r"(?:stroke|color)='(rgb\([^)]*\))'", m.group(2))
        if c: out[m.group(1)] = c.group(1).replace(" ", "")
    return out
tp, pc, lat = colours("throughput"), colours("pct-copy"), colours("latency")
labels = ["cpu-fisher-yates", "cpu-gsl-shuffle", "cpu-rao-sandelius", "cpu-copy", "cpu-gather"]
bad = [l for l in labels if l not in tp]
assert not bad, f"throughput lacks {bad}: {tp}"
assert len({tp[l] for l in labels}) == len(labels), f"two labels share a colour: {tp}"
for l in labels:
    if l in pc and pc[l] != tp[l]:
        sys.exit(f"FAIL: {l} is {tp[l]} in throughput.svg, {pc[l]} in pct-copy.svg")
    for t, c in lat.items():
        if t.startswith(l + " ") and c != tp[l]:
            sys.exit(f"FAIL: {l} is {tp[l]} in throughput.svg, {c} in latency.svg ({t})")
assert "cpu-fisher-yates" in pc, pc
print("ok: one colour a module in throughput, pct-copy and latency")
PY
