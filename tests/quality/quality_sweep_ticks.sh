#!/usr/bin/env bash
# A quality figure against a swept integer parameter (rounds = 1 .. 3) ticks
# whole values only: no "1.5 rounds" on its x axis, drawn or redrawn.
#   quality_sweep_ticks.sh PERMBENCH
set -u
pb=$1
command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
printf '[quality]\ntitle = t\nseed = 1\nalpha = 0.01\ngate = no\nplot = sweep\nchisq = 5\nchisq_samples = 2000\n\n[varphilox]\nmodule = cpu-bijective-twin\nbijection = varphilox\nrounds = 1 .. 3 +1\n' >q.ini
check() {
    # The x tick labels: the text of the ticks along the bottom (anchored
    # middle), numbers only.
    local ticks
    ticks=$(grep -A1 'text-anchor="middle"' o/chisq-n5.svg | sed -n 's/.*<tspan[^>]*> *\([0-9.-]*\)<\/tspan>.*/\1/p' | tr '\n' ' ')
    [ -n "$ticks" ] || { echo "FAIL ($1): no x tick labels found"; exit 1; }
    case " $ticks" in *.*) echo "FAIL ($1): fractional ticks on the x axis: $ticks"; exit 1 ;; esac
    echo "$1: x ticks $ticks"
}
"$pb" quality q.ini --out o --quiet >/dev/null 2>q.err || { echo "FAIL: quality: exit $?"; cat q.err; exit 1; }
check drawn
rm -f o/chisq-n5.svg o/chisq-n5.png
"$pb" quality --replot o >/dev/null 2>r.err || { echo "FAIL: replot: exit $?"; cat r.err; exit 1; }
check redrawn
echo ok
