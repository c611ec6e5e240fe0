#!/usr/bin/env bash
# permbench compare on synthetic runs: results.json files written here with
# chosen samples, so each verdict is known in advance.
#   compare.sh PERMBENCH CASE
# Cases that compare exit as the case says; the bad_* cases must exit 2
# with exactly one 'permbench: ' line on stderr and write nothing.
set -u
pb=$1 case=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1

fail() {
    echo "FAIL: $*"
    echo "--- stdout:"; cat "$work/out" 2>/dev/null
    echo "--- stderr:"; cat "$work/err" 2>/dev/null
    exit 1
}

# samples KIND CENTER SEED: 40 deterministic samples around CENTER ms.
# quiet: within +-0.2%; noisy: spread over +-40% (overlapping runs);
# stallsK: K samples within +-0.2% of CENTER, the other 40 - K stalled on
# the scheduler (400, 800 or 1200 times CENTER, each +-0.2%).
samples() {
    awk -v kind="$1" -v c="$2" -v seed="$3" 'BEGIN {
        s = seed; spread = kind == "noisy" ? 0.4 : 0.002
        fast = kind ~ /^stalls/ ? substr(kind, 7) + 0 : 40
        for (i = 0; i < 40; i++) {
            s = (s * 1103515245 + 12345) % 2147483648
            u = 2 * s / 2147483648 - 1
            m = i < fast ? 1 : 400 * (1 + i % 3)
            printf "%s%.9g", i ? "," : "", c * m * (1 + spread * u)
        }
    }'
}

# row LABEL N STATUS KIND CENTER [SEED [PCT_OF_COPY [DEVICE]]]
row() {
    local seed=${6:-7} pct=${7:-50} dev=${8:-gpu}
    printf '{"label":"%s","module":"%s","family":"shuffle","device":"%s","n":%s,"item_bytes":8,' \
        "$1" "$1" "$dev" "$2"
    printf '"axis_value":"","status":"%s","samples_ms":[%s],"pct_of_copy":%s}' "$3" \
        "$(samples "$4" "$5" "$seed")" "$pct"
}

# run DIR FAMILY GPU COMMIT ROW...: DIR/results.json holding the rows.
run() {
    local dir=$1 family=$2 gpu=$3 commit=$4
    shift 4
    mkdir -p "$dir"
    local rows
    rows=$(IFS=,; echo "$*")
    # MACHINE: a run-level machine object (load, busy, GPU clocks).
    local machine=
    [ -n "${MACHINE:-}" ] && machine="\"machine\": $MACHINE,"
    cat >"$dir/results.json" <<EOF
{"schema_version": 2,
 "provenance": {"date": "2026-01-01T00:00:00Z", "git": {"commit": "$commit", "dirty": "no"},
   "config": {"name": "synthetic", "hash_fnv1a64": "0123456789abcdef"},
   "host": {"cpu_model": "Test CPU", "logical_cpus": 4},
   "gpu": {"present": true, "name": "$gpu", "driver_cuda_version": "13.0", "sm_clock_mhz": 1980,
           "memory_clock_mhz": 3201}},
 $machine
 "sweep": {"family": "$family"},
 "results": [$rows]}
EOF
}

# The same three rows in BASE, NEW changing what a case needs.
base_rows=("$(row gpu-copy 1024 ok quiet 1.0 3 100)" "$(row a 1024 ok quiet 2.0 5)" "$(row b 1024 ok quiet 4.0 9)")
run "$work/base" shuffle "GPU X" aaaaaaa "${base_rows[@]}"

compare() {
    "$pb" compare "$@" >"$work/out" 2>"$work/err"
    rc=$?
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"; }
# verdict LABEL: the verdict column of LABEL's row in the text report.
verdict() { awk -v l="$1" '$1 == l && NF >= 9 { print $9; exit }' "$work/out"; }

case $case in
identical)
    cp -r "$work/base" "$work/new"
    compare "$work/base" "$work/new" --fail-on-slower 0
    expect_rc 0
    grep -q '^3 rows compared: 3 SAME, 0 FASTER, 0 SLOWER' "$work/out" || fail "not all SAME"
    grep -q 'Mann-Whitney U test' "$work/out" || fail "the test is not named"
    [ ! -s "$work/err" ] || fail "something on stderr"
    ;;
packed)
    # A packed reference run (scripts/pack-reference.sh): results.json.gz,
    # read from its directory or by name as the plain file is.
    mkdir "$work/new" && gzip -9n -c "$work/base/results.json" >"$work/new/results.json.gz"
    compare "$work/base" "$work/new" --fail-on-slower 0
    expect_rc 0
    grep -q '^3 rows compared: 3 SAME, 0 FASTER, 0 SLOWER' "$work/out" || fail "not all SAME"
    compare "$work/base" "$work/base" --markdown
    mv "$work/out" "$work/plain.md"
    compare "$work/new/results.json.gz" "$work/new" --markdown
    expect_rc 0
    sed 's#new/results\.json\.gz#base/results.json#g' "$work/out" | cmp -s - "$work/plain.md" ||
        fail "the packed run reads otherwise than the plain one"
    ;;
slower)
    # b 20% slower with 0.2% noise: SLOWER, and a failure beyond 10%.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 4.8 9)"
    compare "$work/base" "$work/new"
    expect_rc 0
    [ "$(verdict b)" = SLOWER ] || fail "b is '$(verdict b)', expected SLOWER"
    [ "$(verdict a)" = SAME ] || fail "a is '$(verdict a)', expected SAME"
    grep -qE '^b .* 1\.200 ' "$work/out" || fail "b's ratio is not 1.200"
    compare "$work/base" "$work/new" --fail-on-slower 10
    expect_rc 1
    grep -q "^permbench: compare: 1 row SLOWER by more than 10%: b n=2^10 (1.200x)" "$work/err" ||
        fail "the failing row is not named on stderr"
    compare "$work/base" "$work/new" --fail-on-slower 25
    expect_rc 0
    ;;
faster)
    # The mirror image: b 20% faster is FASTER; swapped, SLOWER.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 3.2 9)"
    compare "$work/base" "$work/new" --fail-on-slower 5
    expect_rc 0
    [ "$(verdict b)" = FASTER ] || fail "b is '$(verdict b)', expected FASTER"
    compare "$work/new" "$work/base" --fail-on-slower 5
    expect_rc 1
    [ "$(verdict b)" = SLOWER ] || fail "swapped, b is '$(verdict b)', expected SLOWER"
    ;;
noisy)
    # A 5% shift within a +-40% spread: the medians differ by more than the
    # threshold, the U test cannot tell the runs apart, and the median's
    # interval is far wider than max_noise on both sides: UNSTABLE.
    run "$work/nb" shuffle "GPU X" aaaaaaa "$(row a 1024 ok noisy 2.0 5)"
    run "$work/nn" shuffle "GPU X" aaaaaaa "$(row a 1024 ok noisy 2.1 5)"
    compare "$work/nb" "$work/nn" --fail-on-slower 2
    expect_rc 0
    [ "$(verdict a)" = UNSTABLE ] || fail "a is '$(verdict a)', expected UNSTABLE"
    grep -qE '^a .* 1\.050 ' "$work/out" || fail "a's ratio is not 1.050"
    p=$(awk '$1 == "a" { print $8 }' "$work/out")
    awk -v p="$p" 'BEGIN { exit !(p > 0.05) }' || fail "p = $p, expected above alpha"
    # The same shift without the noise is SLOWER.
    run "$work/qb" shuffle "GPU X" aaaaaaa "$(row a 1024 ok quiet 2.0 5)"
    run "$work/qn" shuffle "GPU X" aaaaaaa "$(row a 1024 ok quiet 2.1 5)"
    compare "$work/qb" "$work/qn"
    [ "$(verdict a)" = SLOWER ] || fail "quiet, a is '$(verdict a)', expected SLOWER"
    ;;
threshold)
    # A 1% shift with 0.2% noise: the U test rejects, but below the 2%
    # threshold it is SAME; --threshold 0.5 calls it SLOWER; --alpha 1e-30
    # (a test that cannot reject) SAME again.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 4.04 11)"
    compare "$work/base" "$work/new"
    expect_rc 0
    [ "$(verdict b)" = SAME ] || fail "b is '$(verdict b)', expected SAME"
    compare "$work/base" "$work/new" --threshold 0.5
    [ "$(verdict b)" = SLOWER ] || fail "--threshold 0.5: b is '$(verdict b)', expected SLOWER"
    compare "$work/base" "$work/new" --threshold 0.5 --alpha 1e-30
    [ "$(verdict b)" = SAME ] || fail "--alpha 1e-30: b is '$(verdict b)', expected SAME"
    grep -q 'alpha 1e-30' "$work/out" || fail "the alpha used is not stated"
    ;;
unmatched)
    # Rows on one side only, and rows not ok, are listed, not compared.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[0]}" "$(row a 1024 FAILED quiet 2.0 5)" \
        "$(row c 1024 ok quiet 1.0 5)" "$(row b 4096 ok quiet 4.0 9)"
    compare "$work/base" "$work/new"
    expect_rc 0
    grep -q '^1 row compared' "$work/out" || fail "expected one row compared"
    grep -A1 '^Only in BASE:' "$work/out" | grep -q '^  b  n = 2^10, 8 B' || fail "b (2^10) not listed as only in BASE"
    grep -A2 '^Only in NEW:' "$work/out" | grep -q '^  c  n = 2^10, 8 B' || fail "c not listed as only in NEW"
    grep -A2 '^Only in NEW:' "$work/out" | grep -q '^  b  n = 2^12, 8 B' || fail "b (2^12) not listed as only in NEW"
    grep -A1 '^Not compared' "$work/out" | grep -q '^  a  n = 2^10, 8 B (BASE ok, NEW FAILED)' || fail "a not listed as not ok"
    ;;
renamed)
    # A run written before the modules' rename (rows of [gpu-radik], [copy])
    # against one after it ([gpu-radik], [gpu-copy]): the old names read as
    # the new, so the rows are matched; an instance named otherwise
    # (radik-two-read) is not renamed, and matches itself.
    run "$work/ob" shuffle "GPU X" aaaaaaa "$(row copy 1024 ok quiet 1.0 3 100)" \
        "$(row gpu-radik/k=32 1024 ok quiet 2.0 5)" "$(row radik-two-read 1024 ok quiet 4.0 9)"
    run "$work/nn" shuffle "GPU X" aaaaaaa "$(row gpu-copy 1024 ok quiet 1.0 3 100)" \
        "$(row gpu-radik/k=32 1024 ok quiet 2.6 5)" "$(row radik-two-read 1024 ok quiet 4.0 9)"
    compare "$work/ob" "$work/nn"
    expect_rc 0
    grep -q '^3 rows compared: 2 SAME, 0 FASTER, 1 SLOWER' "$work/out" || fail "the renamed rows are not matched"
    grep -q '^Only in' "$work/out" && fail "a row is only in one run"
    [ "$(verdict gpu-radik/k=32)" = SLOWER ] || fail "gpu-radik/k=32 is '$(verdict gpu-radik/k=32)', expected SLOWER"
    [ "$(verdict radik-two-read)" = SAME ] || fail "radik-two-read is '$(verdict radik-two-read)', expected SAME"
    ;;
devices)
    # Another GPU: every row 1.5x faster, the copy 2x: the share of the copy
    # falls from 50% to 37.5% (ratio 0.750); provenance differences marked.
    run "$work/new" shuffle "GPU Y" bbbbbbb "$(row gpu-copy 1024 ok quiet 0.5 3 100)" \
        "$(row a 1024 ok quiet 1.3333333 5 37.5)" "$(row b 1024 ok quiet 2.6666667 9 37.5)"
    compare "$work/base" "$work/new"
    expect_rc 0
    grep -q 'share ratio' "$work/out" || fail "no share ratio column"
    grep -qE '^a .* FASTER +0\.750$' "$work/out" || fail "a's share ratio is not 0.750"
    grep -qE '^gpu-copy .* FASTER +1\.000$' "$work/out" || fail "the copy's share ratio is not 1.000"
    grep -qE '^GPU +GPU X +GPU Y +\(differs\)' "$work/out" || fail "the GPU difference is not marked"
    grep -qE '^commit +aaaaaaa +bbbbbbb +\(differs\)' "$work/out" || fail "the commit difference is not marked"
    grep -qE '^SM clock +1980 MHz +1980 MHz$' "$work/out" || fail "an equal line is marked"
    # The same GPU: no share column.
    run "$work/same" shuffle "GPU X" bbbbbbb "$(row a 1024 ok quiet 1.3333333 5 37.5)"
    compare "$work/base" "$work/same"
    ! grep -q 'share ratio' "$work/out" || fail "a share ratio column on one device"
    ;;
markdown)
    run "$work/new" shuffle "GPU Y" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 4.8 9)"
    compare "$work/base" "$work/new/results.json" --markdown
    expect_rc 0
    grep -qF '| label | n | item | base ms | new ms | ratio | verdict | p-value | share ratio |' "$work/out" ||
        fail "no Markdown table header"
    grep -qE '^\| b \| 2\^10 \| 8 \| [0-9.]+ \| [0-9.]+ \| 1\.200 \| \*\*SLOWER\*\* \| [0-9.e-]+ \| 1\.000 \|$' "$work/out" ||
        fail "b's Markdown row is not as expected"
    grep -qF '| GPU | GPU X | GPU Y | differs |' "$work/out" || fail "no provenance table"
    ;;
out)
    # --out: compare.json (schema 1), compare.csv, compare.md, the figure.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 4.8 9)"
    compare "$work/base" "$work/new" --out "$work/o" --fail-on-slower 10
    expect_rc 1
    for f in compare.json compare.csv compare.md; do [ -s "$work/o/$f" ] || fail "no $f"; done
    grep -q '"schema_version": 1' "$work/o/compare.json" || fail "compare.json has no schema_version 1"
    grep -q '"name": "Mann-Whitney U"' "$work/o/compare.json" || fail "compare.json does not name the test"
    grep -q '"slower_beyond_fail": 1' "$work/o/compare.json" || fail "compare.json: slower_beyond_fail"
    [ "$(grep -c ',SLOWER,' "$work/o/compare.csv")" -eq 1 ] || fail "compare.csv: one SLOWER row expected"
    [ "$(wc -l <"$work/o/compare.csv")" -eq 4 ] || fail "compare.csv: header and three rows expected"
    grep -qF '| b | 2^10 |' "$work/o/compare.md" || fail "compare.md has no row b"
    if command -v gnuplot >/dev/null; then
        [ -s "$work/o/compare.png" ] && [ -s "$work/o/compare.svg" ] || fail "no figure"
        ! grep -qv '^#' "$work/o/gnuplot.log" || fail "gnuplot warned: $(cat "$work/o/gnuplot.log")"
    fi
    ls "$work/o" | grep -q 'tmp' && fail "a temporary file is left"
    # A second comparison into the same directory is refused.
    compare "$work/base" "$work/new" --out "$work/o"
    expect_rc 2
    grep -q "already holds results; choose another --out" "$work/err" || fail "the second --out was not refused"
    ;;
unstable_noisy)
    # One noisy row, 10% slower in its median: UNSTABLE, not judged; exit 0
    # under --fail-on-slower, 1 with --strict, which names it.
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok noisy 4.4 9)"
    compare "$work/base" "$work/new" --fail-on-slower 5
    expect_rc 0
    [ "$(verdict b)" = UNSTABLE ] || fail "b is '$(verdict b)', expected UNSTABLE"
    [ "$(verdict a)" = SAME ] || fail "a is '$(verdict a)', expected SAME"
    grep -q '^3 rows compared: 2 SAME, 0 FASTER, 0 SLOWER, 1 UNSTABLE' "$work/out" || fail "the summary does not count it"
    grep -A1 '^Unstable (no verdict):' "$work/out" | grep -qE '^  b  n = 2\^10, 8 B: NEW noisy \(\+-[0-9.]+%\)$' ||
        fail "b is not listed as unstable, NEW noisy"
    [ ! -s "$work/err" ] || fail "something on stderr"
    compare "$work/base" "$work/new" --fail-on-slower 5 --strict
    expect_rc 1
    grep -q '^permbench: compare: 1 row SLOWER (or UNSTABLE, --strict) by more than 5%: b n=2^10' "$work/err" ||
        fail "--strict does not name b"
    # --strict with a bound the ratio does not exceed: 0.
    compare "$work/base" "$work/new" --fail-on-slower 50 --strict
    expect_rc 0
    ;;
unstable_clusters)
    # The same binary, its samples in two clusters (fast, or stalled 400x
    # and more): BASE has 19 fast of 40, NEW 21, so BASE's median is a stall
    # and NEW's a fast sample, a ratio near 0.003 that the U test cannot
    # see. UNSTABLE (multimodal on both sides), not SAME.
    run "$work/sb" shuffle "GPU X" aaaaaaa "$(row a 1024 ok stalls19 0.01 5)"
    run "$work/sn" shuffle "GPU X" aaaaaaa "$(row a 1024 ok stalls21 0.01 5)"
    compare "$work/sb" "$work/sn" --fail-on-slower 5
    expect_rc 0
    [ "$(verdict a)" = UNSTABLE ] || fail "a is '$(verdict a)', expected UNSTABLE"
    grep -qE '^a .* 0\.00[0-9] ' "$work/out" || fail "a's ratio is not near 0.003"
    grep -A1 '^Unstable (no verdict):' "$work/out" | grep -q 'BASE multimodal, NEW multimodal' ||
        fail "the clusters are not named"
    ;;
seeds)
    # A row measured over 2 seeds whose medians are 10% apart (1.0 and 1.1
    # ms, each seed quiet): judged seed by seed it is quiet and SAME, its
    # median 1.05 (the seeds' medians' median); pooled, the two would read
    # as clusters with the median between them (UNSTABLE). Its 9.5% spread,
    # above max_noise, is listed, not judged; compare.json carries it.
    seeded() {
        printf '{"label":"s","module":"s","family":"shuffle","device":"gpu","n":1024,"item_bytes":8,'
        printf '"axis_value":"","status":"ok","seeds":2,"seed_samples":[40,40],"samples_ms":[%s,%s]}' \
            "$(samples quiet 1.0 "$1")" "$(samples quiet 1.1 "$2")"
    }
    run "$work/sb" shuffle "GPU X" aaaaaaa "$(seeded 5 6)"
    run "$work/sn" shuffle "GPU X" aaaaaaa "$(seeded 8 9)"
    compare "$work/sb" "$work/sn" --out "$work/cmp"
    expect_rc 0
    [ "$(verdict s)" = SAME ] || fail "s is '$(verdict s)', expected SAME"
    grep -qE '^s .* 1\.0[45][0-9]* .* 1\.0[45][0-9]* ' "$work/out" || fail "s's medians are not the median seed's (1.05)"
    grep -A1 '^Seed spread above max_noise (shown, not judged):' "$work/out" |
        grep -qE 's  n = 2\^10, 8 B: BASE 9\.[0-9]% over 2 seeds, NEW 9\.[0-9]% over 2 seeds' ||
        fail "the spread is not listed"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rows'][0]; assert r['base']['seeds'] == 2 and 9 < r['new']['seed_spread_pct'] < 10, r" \
        "$work/cmp/compare.json" || fail "compare.json lacks the seeds"
    # The same samples without their seeds: clusters, UNSTABLE.
    sed -i 's/"seeds":2,"seed_samples":\[40,40\],//' "$work/sn/results.json"
    compare "$work/sb" "$work/sn"
    [ "$(verdict s)" = UNSTABLE ] || fail "pooled, s is '$(verdict s)', expected UNSTABLE"
    ;;
unstable_busy)
    # A row measured on a busy machine (its busy flag) is UNSTABLE however
    # quiet; a row flagged multimodal by its run too. The machine state of
    # both runs is in the provenance table, differences marked.
    MACHINE='{"busy": false, "before": {"load_avg_1m": 0.05}, "after": {"load_avg_1m": 0.1}, "gpus": [{"throttle_reasons": "none", "sm_clock_mhz": 1980}]}' \
        run "$work/mb" shuffle "GPU X" aaaaaaa "${base_rows[@]}"
    busy_row=$(row b 1024 ok quiet 4.0 9 | sed 's/}$/,"busy":true}/')
    mm_row=$(row a 1024 ok quiet 2.0 5 | sed 's/}$/,"multimodal":true}/')
    MACHINE='{"busy": true, "before": {"load_avg_1m": 2.5}, "after": {"load_avg_1m": 3.9}, "gpus": [{"throttle_reasons": "sw_thermal", "sm_clock_mhz": 1410}]}' \
        run "$work/mn" shuffle "GPU X" aaaaaaa "${base_rows[0]}" "$mm_row" "$busy_row"
    compare "$work/mb" "$work/mn"
    expect_rc 0
    [ "$(verdict b)" = UNSTABLE ] || fail "b is '$(verdict b)', expected UNSTABLE"
    [ "$(verdict a)" = UNSTABLE ] || fail "a is '$(verdict a)', expected UNSTABLE"
    [ "$(verdict gpu-copy)" = SAME ] || fail "gpu-copy is '$(verdict gpu-copy)', expected SAME"
    grep -q '^  b  n = 2^10, 8 B: NEW busy$' "$work/out" || fail "b is not listed as NEW busy"
    grep -q '^  a  n = 2^10, 8 B: NEW multimodal$' "$work/out" || fail "a is not listed as NEW multimodal"
    grep -qE '^machine.busy +no +yes +\(differs\)' "$work/out" || fail "machine.busy is not shown"
    grep -qE '^machine.after.load_avg_1m +0.1 +3.9 +\(differs\)' "$work/out" || fail "the load is not shown"
    grep -qE '^machine.gpus\[0\].throttle_reasons +none +sw_thermal +\(differs\)' "$work/out" ||
        fail "the throttle reasons are not shown"
    grep -qE '^machine.gpus\[0\].sm_clock_mhz +1980 +1410 +\(differs\)' "$work/out" || fail "the clock is not shown"
    # A run without a machine object (an older permbench): one line says
    # so and the other side's busy verdict, not every value against "-".
    compare "$work/base" "$work/mn" --out "$work/o"
    grep -qE '^machine +not recorded +recorded +\(differs\)' "$work/out" || fail "a missing machine object is not one line"
    grep -qE '^machine.busy +- +yes +\(differs\)' "$work/out" || fail "the recorded side's busy is not shown"
    ! grep -q '^machine.after' "$work/out" || fail "every value of one side is listed against nothing"
    grep -q '"field": "machine.busy"' "$work/o/compare.json" || fail "compare.json lacks the busy line"
    compare "$work/mb" "$work/mn" --out "$work/o2"
    grep -q '"field": "machine.after.load_avg_1m"' "$work/o2/compare.json" || fail "compare.json lacks the load"
    grep -q '"unstable": "NEW busy"' "$work/o/compare.json" || fail "compare.json lacks b's reason"
    grep -q ',UNSTABLE,' "$work/o/compare.csv" || fail "compare.csv lacks UNSTABLE"
    ;;
figure_margin)
    # A row 321 times slower is drawn whole: its point's centre lies at
    # least 12 px inside the top of the frame (about twice the marker's
    # diameter in the SVG; the PNG draws markers larger, where 6 px cut it).
    command -v gnuplot >/dev/null || { echo "skipped: no gnuplot"; exit 77; }
    run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[@]:0:2}" "$(row b 1024 ok quiet 1284 9)"
    compare "$work/base" "$work/new" --out "$work/o"
    expect_rc 0
    python3 - "$work/o/compare.svg" <<'PY' || fail "the 321x point is at the frame"
import re, sys
s = open(sys.argv[1]).read()
# The frame: the border path (the plot's rectangle), its top the smallest y.
ys = [float(y) for y in re.findall(r"translate\([0-9.]+,([0-9.]+)\)[^']*' color='rgb\(214,\s*39,\s*40\)'", s)]
assert ys, "no SLOWER point in the figure"
border = re.search(r"<path stroke='black'\s+d='M([0-9.]+),([0-9.]+) L[0-9.]+,([0-9.]+)( L[0-9.]+,[0-9.]+){3} Z", s)
top = min(float(border.group(2)), float(border.group(3))) if border else None
assert top is not None, "no frame found"
y = min(ys)
print(f"point at y={y}, frame top at y={top}")
assert y - top >= 12, f"the point's centre is {y - top:.1f} px inside the frame"
PY
    ;;
bad_*)
    o="$work/o"
    case $case in
    bad_missing) args=("$work/none" "$work/base"); want="compare: BASE $work/none: No such file or directory" ;;
    bad_no_results) mkdir "$work/empty"; args=("$work/base" "$work/empty"); want="compare: NEW $work/empty: no results.json in that directory" ;;
    bad_not_json) echo 'not json' >"$work/x.json"; args=("$work/x.json" "$work/base"); want="compare: BASE $work/x.json: not a results.json (line 1:" ;;
    bad_json_newline) printf '{"a": "x\\\nq"}' >"$work/x.json"; args=("$work/x.json" "$work/base"); want="compare: BASE $work/x.json: not a results.json (line 2: invalid escape near '\"x\\?')" ;;
    bad_control_label) run "$work/new" shuffle "GPU X" aaaaaaa "$(row 'a\nb' 1024 ok quiet 1.0 5)"; args=("$work/base" "$work/new"); want="row 0: a control character in its label" ;;
    bad_corrupt_gz)
        mkdir "$work/cut" && gzip -9n -c "$work/base/results.json" | head -c 300 >"$work/cut/results.json.gz"
        args=("$work/base" "$work/cut"); want="compare: NEW $work/cut/results.json.gz: not a results.json (corrupt gzip data (unexpected end of file))" ;;
    bad_not_results) echo '{"schema_version": 1, "rows": []}' >"$work/q.json"; args=("$work/base" "$work/q.json"); want="compare: NEW $work/q.json: not a permbench results.json" ;;
    bad_schema)
        sed 's/"schema_version": 2/"schema_version": 3/' "$work/base/results.json" >"$work/s3.json"
        args=("$work/base" "$work/s3.json"); want="results.json schema_version 3; this permbench reads 1 and 2" ;;
    bad_family) run "$work/new" topk "GPU X" aaaaaaa "${base_rows[@]}"; args=("$work/base" "$work/new"); want="compare: BASE is a shuffle run and NEW a topk run; compare runs of one family" ;;
    bad_nothing_common) run "$work/new" shuffle "GPU X" aaaaaaa "$(row z 1024 ok quiet 1.0 5)"; args=("$work/base" "$work/new"); want="compare: BASE and NEW have no row in common" ;;
    bad_duplicate_row) run "$work/new" shuffle "GPU X" aaaaaaa "${base_rows[1]}" "${base_rows[1]}"; args=("$work/base" "$work/new"); want="rows 0 and 1 are both a at n = 1024, 8 B" ;;
    bad_no_samples) run "$work/new" shuffle "GPU X" aaaaaaa '{"label":"a","n":1024,"item_bytes":8,"status":"ok"}'; args=("$work/base" "$work/new"); want="row 0 (a) is ok but has no samples_ms" ;;
    bad_threshold) args=("$work/base" "$work/base" --threshold abc); want="compare: --threshold 'abc' is not a percentage" ;;
    bad_threshold_negative) args=("$work/base" "$work/base" --threshold -1); want="compare: --threshold '-1' is not a percentage" ;;
    bad_alpha) args=("$work/base" "$work/base" --alpha 1); want="compare: --alpha '1' is not a level" ;;
    bad_fail_on_slower) args=("$work/base" "$work/base" --fail-on-slower 5x); want="compare: --fail-on-slower '5x' is not a percentage" ;;
    bad_one_arg) args=("$work/base"); want="compare: expected BASE and NEW, got 1 argument" ;;
    bad_three_args) args=("$work/base" "$work/base" "$work/base"); want="compare: expected BASE and NEW, got 3 arguments" ;;
    bad_option) args=("$work/base" "$work/base" --bogus); want="compare: unknown option '--bogus'" ;;
    bad_strict) args=("$work/base" "$work/base" --strict); want="compare: --strict needs --fail-on-slower" ;;
    bad_out_file) : >"$work/afile"; o="$work/afile"; args=("$work/base" "$work/base"); want="compare: $work/afile is not a directory" ;;
    bad_out_run) o="$work/base"; args=("$work/base" "$work/base"); want="compare: --out $work/base holds a run's results (results.json); choose another directory" ;;
    *) echo "unknown case $case"; exit 1 ;;
    esac
    compare "${args[@]}" --out "$o"
    expect_rc 2
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$(wc -l <"$work/err") lines on stderr, expected 1"
    grep -q '^permbench: ' "$work/err" || fail "stderr does not start with 'permbench: '"
    grep -qF -- "$want" "$work/err" || fail "stderr does not contain: $want"
    [ ! -s "$work/out" ] || fail "something on stdout"
    if [ "$o" = "$work/o" ]; then [ ! -e "$o" ] || fail "$o was created"
    elif [ -d "$o" ]; then [ -z "$(ls -A "$o" | grep -v '^results\.json$')" ] || fail "$o was written into: $(ls -A "$o")"
    else [ ! -s "$o" ] || fail "$o was written"; fi
    ;;
*) echo "unknown case $case"; exit 1 ;;
esac
echo "ok: $case"
