#!/usr/bin/env bash
# scripts/pov-breaking-point.sh --from on a small synthetic quality.csv with
# known breaking points (first pass, stable pass, reaching the baseline,
# never reached, a baseline that fails, a chance failure after passing, rows
# out of order, a test without a baseline), the figures when gnuplot is
# there, and its refusals (a missing column, a gap in the iterations, a row
# with a quoted comma, a missing quality.csv). With PERMBENCH, also a tiny
# real run (--config, -D): cpu-pov-shuffle at 1..3 iterations, n = 64 and 512.
#
#   pov_breaking_point.sh SOURCE_DIR [PERMBENCH]
set -u
src=$1 pb=${2:-}
script="$src/scripts/pov-breaking-point.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; exit 1; }

hdr="label,group,module,device,param,value,n,test,samples,statistic,threshold,p_value,alpha,verdict,expected,invalid,seconds"
row() { # group iterations n test statistic verdict
    local label=$1 param=iterations
    [ -n "$2" ] && label="$1/iterations=$2" || param=""
    echo "$label,$1,m,cpu,$param,$2,$3,$4,3000,$5,0.5,0.5,0.01,$6,0.4,0,0.1"
}
mkdir "$work/run"
{
    echo "$hdr"
    # positional-tvd, n = 512: fails 1-2, passes 3.., below the baseline from 4
    row pov 1 512 positional-tvd 0.9 FAIL
    row pov 2 512 positional-tvd 0.6 FAIL
    row pov 3 512 positional-tvd 0.45 PASS
    row pov 4 512 positional-tvd 0.39 PASS
    # n = 64: passes from 1, a chance failure at 3; rows out of order
    row pov 3 64 positional-tvd 0.51 FAIL
    row pov 1 64 positional-tvd 0.41 PASS
    row pov 4 64 positional-tvd 0.3 PASS
    row pov 2 64 positional-tvd 0.42 PASS
    # bigram-tvd, n = 512: never passes; the baseline fails too
    row pov 1 512 bigram-tvd 0.9 FAIL
    row pov 2 512 bigram-tvd 0.8 FAIL
    row pov 3 512 bigram-tvd 0.7 SUSPECT
    row pov 4 512 bigram-tvd 0.6 FAIL
    # mmd-clt, n = 100: no baseline row
    row pov 1 100 mmd-clt 1e-3 FAIL
    row pov 2 100 mmd-clt 2e-5 PASS
    row pov 3 100 mmd-clt 1e-5 PASS
    row pov 4 100 mmd-clt 3e-5 PASS
    # another group and another sweep are not POV's
    row other 1 512 positional-tvd 0.1 PASS
    row cpu-fisher-yates "" 512 positional-tvd 0.4 PASS
    row cpu-fisher-yates "" 64 positional-tvd 0.35 PASS
    row cpu-fisher-yates "" 512 bigram-tvd 0.55 FAIL
} >"$work/run/quality.csv"

out=$(bash "$script" --from "$work/run" --no-plot) || fail "the extraction failed: $out"
expect="n,test,iterations,first_pass,stable_pass,reach_baseline,baseline_statistic,baseline_verdict,threshold,samples
512,bigram-tvd,1-4,NaN,NaN,NaN,0.55,FAIL,0.5,3000
100,mmd-clt,1-4,2,2,NaN,NaN,,0.5,3000
64,positional-tvd,1-4,1,4,4,0.35,PASS,0.5,3000
512,positional-tvd,1-4,3,3,4,0.4,PASS,0.5,3000"
got=$(cat "$work/run/breaking-point.csv")
[ "$got" = "$expect" ] || fail "breaking-point.csv:
$got
expected:
$expect"
echo "$out" | grep -q "breaking points: $work/run/breaking-point.csv" || fail "no summary line: $out"

# The figures, where gnuplot is: both kinds, png and svg, into --out.
if command -v gnuplot >/dev/null; then
    bash "$script" --from "$work/run" --out "$work/fig" >/dev/null || fail "drawing failed: $(cat "$work/fig/gnuplot.log" 2>/dev/null)"
    for f in pov-breaking-point.png pov-breaking-point.svg pov-breaking-point-baseline.png \
        pov-breaking-point-baseline.svg breaking-point.csv; do
        [ -s "$work/fig/$f" ] || fail "no $f"
    done
    grep -q '</svg>' "$work/fig/pov-breaking-point.svg" || fail "pov-breaking-point.svg is cut"
    [ ! -e "$work/fig/gnuplot.log" ] || fail "gnuplot warned: $(cat "$work/fig/gnuplot.log")"
    ls -a "$work/fig" | grep -q '\.tmp$' && fail "a temporary file was left"
fi

# Refusals: exit 2 and a message, no table.
refuse() { # name: what the message must say
    local name=$1 want=$2 msg
    msg=$(bash "$script" --from "$work/$name" --no-plot 2>&1) && fail "$name: accepted"
    echo "$msg" | grep -q -- "$want" || fail "$name: '$msg' does not say '$want'"
    [ ! -e "$work/$name/breaking-point.csv" ] || fail "$name: a table was written"
}
mkdir "$work/nocol" "$work/gap" "$work/quoted" "$work/empty"
sed '1s/,verdict,/,verdikt,/' "$work/run/quality.csv" >"$work/nocol/quality.csv"
refuse nocol "no column verdict"
grep -v '^pov/iterations=2,.*,512,positional-tvd,' "$work/run/quality.csv" >"$work/gap/quality.csv"
refuse gap "with gaps"
{ cat "$work/run/quality.csv"; echo '"a,b",pov,m,cpu,iterations,5,512,positional-tvd,3000,0.4,0.5,0.5,0.01,PASS,0.4,0,0.1'; } >"$work/quoted/quality.csv"
refuse quoted "fields"
refuse empty "quality.csv does not exist"
bash "$script" --bogus >/dev/null 2>&1 && fail "an unknown argument was accepted"

# End to end: permbench quality, then the table. n = 64 is one virtual block
# at the defaults (exact Fisher-Yates: a verdict, whichever); n = 512 is
# two, and one iteration leaves a positional bias no test at 3000 episodes
# misses (p ~ 0 in the reference runs).
if [ -n "$pb" ]; then
    cat >"$work/tiny.ini" <<'EOF'
[quality]
seed = 1
gate = no
positional = 64, 512
positional_samples = 3000

[pov]
module = cpu-pov-shuffle
iterations = 1 .. 3 +1

[cpu-fisher-yates]
EOF
    bash "$script" --permbench "$pb" --config "$work/tiny.ini" --out "$work/e2e" \
        -D quality.predictor=512 -D quality.predictor_samples=3000 --no-plot >"$work/e2e.log" 2>&1 ||
        fail "the run failed: $(cat "$work/e2e.log")"
    grep -q 'quality.predictor=512' "$work/e2e/quality.json" || fail "-D did not reach permbench"
    awk -F, 'NR > 1 { print $1, $2, $3 }' "$work/e2e/breaking-point.csv" >"$work/e2e.rows"
    [ "$(cat "$work/e2e.rows")" = "64 positional-tvd 1-3
512 positional-tvd 1-3
512 predictor-accuracy 1-3" ] || fail "e2e rows: $(cat "$work/e2e.rows")"
    awk -F, '$1 == 512 && $2 == "positional-tvd" && $4 == 1 { bad = 1 } END { exit bad }' \
        "$work/e2e/breaking-point.csv" || fail "one iteration passed positional at n = 512"
fi
echo "ok"
