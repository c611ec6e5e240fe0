#!/usr/bin/env bash
# scripts/peers/peers.py without a GPU: its plan, statistics and files, fed
# synthetic timings (run --synthetic), read back by permbench itself.
#   peers.sh PERMBENCH SOURCE_DIR PYTHON3 CASE
# The *_reference cases stand peers beside committed H200 runs, the
# *_current cases beside a run of this build; every results directory
# peers.py writes must be drawn by `permbench plot` (when gnuplot is there)
# and read by `permbench compare`. bad_* cases must exit 2 with one line on
# stderr and write nothing; no_libraries must exit 77 with one line.
set -u
pb=$1 src=$2 py=$3 case=$4
peers="$src/scripts/peers/peers.py"
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
# The offline bundle carried to a GPU node leaves results/ behind: there the
# cases that read committed runs have none to read, which is not a failure.
case $case in
*_current) ;;
*) [ -d "$src/results/reference/nvidia-h200/measurement-trust" ] ||
    { echo "SKIP: no committed runs under $src/results/reference (a tree without results/)"; exit 77; } ;;
esac

fail() {
    echo "FAIL: $*"
    for f in out err; do [ -s "$work/$f" ] && { echo "--- $f:"; head -40 "$work/$f"; }; done
    exit 1
}
# p ARGS...: peers.py, status in $rc, output in out and err
p() {
    "$py" "$peers" "$@" >"$work/out" 2>"$work/err"
    rc=$?
}
expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1 (peers.py ${*:2})"; }
# one_line: stderr is one line from peers.py
one_line() {
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "stderr is not one line"
    grep -q '^peers: ' "$work/err" || fail "stderr does not start with 'peers: '"
}
have_gnuplot() { [ -n "${PERMBENCH_GNUPLOT:-}" ] || command -v gnuplot >/dev/null; }
plot() { # plot DIR FIGURE...: permbench plot draws them
    local dir=$1
    shift
    have_gnuplot || return 0
    "$pb" plot "$dir" >"$work/out" 2>"$work/err" || fail "permbench plot $dir: exit $?"
    for f in "$@"; do [ -s "$dir/$f.png" ] && [ -s "$dir/$f.svg" ] || fail "plot drew no $f"; done
}
compare() { # compare BASE NEW EXPECT: permbench compare reads both; its summary line
    "$pb" compare "$1" "$2" >"$work/out" 2>"$work/err" || fail "permbench compare $1 $2: exit $?"
    grep -q "^$3" "$work/out" || fail "compare: no line '$3'"
}
# check DIR PYTHON-ASSERTIONS: DIR/results.json as `r`, results.csv as `c`
check() {
    "$py" - "$1" "$2" <<'EOF' || fail "check of $1"
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/results.json"))
c = list(csv.DictReader(open(d + "/results.csv")))
exec(sys.argv[2])
EOF
}
# The checks every peers results directory passes: permbench's CSV header,
# schema 2, raw samples as many as `samples`, statistics that match them.
check_peers() {
    local dir=$1 rows=$2
    if [ ! -s "$work/header" ]; then # permbench's own header, from a run of this build
        "$pb" run "$src/tests/data/peers-topk.ini" --out "$work/header-run" --quiet >/dev/null 2>&1 ||
            fail "permbench run of tests/data/peers-topk.ini"
        head -1 "$work/header-run/results.csv" >"$work/header"
    fi
    head -1 "$dir/results.csv" | cmp -s - "$work/header" || fail "results.csv header is not permbench's"
    check "$dir" "
assert r['schema_version'] == 2
assert r['provenance']['peers']['backend'] == 'synthetic'
assert len(r['results']) == $rows == len(c) == r['summary']['rows'], (len(r['results']), len(c))
labels = set(i['label'] for i in r['instances'])
for j, row in zip(r['results'], c):
    assert j['label'] in labels and j['label'] == row['label']
    assert j['module'].startswith(('torch-', 'cupy-', 'jax-')), j['module']
    assert j['status'] == 'ok' and j['verified'] is True and row['verified'] == 'yes'
    s = sorted(j['samples_ms'])
    assert len(s) == j['samples'] == len(j['samples_wall_ms']) >= r['sweep']['min_samples']
    m = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    assert abs(m - j['median_ms']) <= 1e-8 * m and float(row['median_ms']) == float('%.6g' % m)
    assert j['min_ms'] == s[0] and j['max_ms'] == s[-1]
    assert j['device'] == 'gpu' and j['threads'] is None and row['threads'] == ''
"
}


reference() { # reference NAME: a committed H200 run, copied (plot writes into it)
    cp -r "$src/results/reference/nvidia-h200/measurement-trust/$1" "$work/ref"
    rm -f "$work/ref"/*.png "$work/ref"/*.svg
}

case $case in
topk_reference)
    reference topk-perf
    p run --like "$work/ref" --out "$work/peers" --synthetic --quiet
    expect_rc 0 run
    check_peers "$work/peers" 112
    check "$work/peers" "
assert r['sweep']['plots'] == ['axis-time'], r['sweep']['plots']
assert r['provenance']['config']['hash_fnv1a64'] == '286dcbc8cf4aa5a0'
assert r['provenance']['gpu']['name'] == 'NVIDIA H200'
series = sorted(set(j['series'] for j in r['results']))
assert series == ['jax-topk', 'jax-topk-narrow128', 'torch-sort', 'torch-sort-narrow128', 'torch-topk',
                  'torch-topk-narrow128', 'torch-topk-sorted', 'torch-topk-sorted-narrow128'], series
assert all(j['axis'] == 'k' for j in r['results'])
"
    plot "$work/peers" axis-time
    # peer rows under our labels: permbench compare sets them row by row
    # (ours named by the modules' old names here, which still work:
    # docs/modules.md; --by-params below names them by the new)
    p relabel "$work/peers" "$work/rel" torch-topk=radik torch-sort=sort-and-choose \
        torch-topk-narrow128=radik-narrow128 torch-sort-narrow128=sort-and-choose-narrow128
    expect_rc 0 relabel
    compare "$work/rel" "$work/ref" "56 rows compared"
    # the same pairs found by parameters (the distribution's series too)
    p relabel "$work/peers" "$work/rel2" torch-topk=gpu-radik --against "$work/ref" \
        --by-params torch-topk=gpu-radik --by-params torch-sort=gpu-sort-and-choose
    expect_rc 0 relabel-by-params
    "$py" -c "
import json, sys
r = json.load(open(sys.argv[1]))
series = sorted(set(j['series'] for j in r['results']))
assert series == ['gpu-radik', 'gpu-sort-and-choose', 'radik-narrow128', 'sort-and-choose-narrow128'], series
" "$work/rel2/results.json" || fail "relabel --by-params paired the wrong series"
    compare "$work/rel2" "$work/ref" "56 rows compared"
    # synthetic rows are not merged unless asked
    p merge "$work/ref" "$work/peers" "$work/merged"
    expect_rc 2 merge
    one_line
    [ ! -e "$work/merged" ] || fail "merge wrote something"
    p merge "$work/ref" "$work/peers" "$work/merged" --allow-synthetic
    expect_rc 0 merge
    check "$work/merged" "
assert len(r['results']) == 71 + 112 == len(c)
# the committed run's CSV predates the link, interval, busy, suspect and path columns: its lines get them, empty
assert list(c[0].keys())[-9:-7] == ['link_bytes', 'link_gbps'] and list(c[0].keys())[-3:] == ['busy', 'suspect', 'path'] and all(row['link_bytes'] == row['link_gbps'] == row['path'] == '' for row in c)
assert all((row['median_ci_halfwidth_pct'] != '') == row['module'].startswith(('torch-', 'jax-')) for row in c)
peer = [j for j in r['results'] if j['module'].startswith(('torch-', 'jax-'))]
assert all(j['pct_of_copy'] > 0 and j['speedup_vs_ref'] > 0 for j in peer)
ref = dict((j['axis_value'], j['median_ms']) for j in r['results'] if j['series'] == 'gpu-sort-and-choose')
for j in peer:
    assert abs(j['speedup_vs_ref'] - ref[j['axis_value']] / j['median_ms']) < 1e-6 * j['speedup_vs_ref']
assert r['sweep']['title'].endswith('+ torch/jax peers'), r['sweep']['title']
assert r['provenance']['peers']['peers']['backend'] == 'synthetic'
"
    plot "$work/merged" axis-time axis-speedup
    # Against itself: no change, but one row of the committed run is noisy or
    # multimodal by its median's interval, so it has no verdict (UNSTABLE).
    compare "$work/ref" "$work/merged" "71 rows compared: 70 SAME, 0 FASTER, 0 SLOWER, 1 UNSTABLE"
    ;;
shuffle_reference)
    reference table1
    p run --like "$work/ref" --out "$work/peers" --synthetic --quiet --set max_samples=40
    expect_rc 0 run
    check_peers "$work/peers" 32
    check "$work/peers" "
assert r['sweep']['plots'] == ['throughput', 'latency'], r['sweep']['plots']
assert sorted(set(j['label'] for j in r['results'])) == ['cupy-shuffle', 'jax-permutation', 'torch-randperm-index',
                                                         'torch-sort-shuffle']
assert all(j['samples'] <= 40 for j in r['results'])
"
    plot "$work/peers" throughput latency
    p relabel "$work/peers" "$work/rel" torch-randperm-index=bijective2-varphilox cupy-shuffle=gpu-thrust-shuffle
    expect_rc 0 relabel
    compare "$work/rel" "$work/ref" "16 rows compared"
    p merge "$work/ref" "$work/peers" "$work/merged" --allow-synthetic --only torch-randperm-index,cupy-shuffle
    expect_rc 0 merge
    check "$work/merged" "
assert len(r['results']) == 56 + 16 == len(c)
peer = [j for j in r['results'] if j['label'] in ('torch-randperm-index', 'cupy-shuffle')]
assert len(peer) == 16 and all(j['pct_of_copy'] > 0 and j['speedup_vs_ref'] is None for j in peer)
copy = dict((j['n'], j['effective_gbps']) for j in r['results'] if j['label'] == 'gpu-copy')
for j in peer:
    assert abs(j['pct_of_copy'] - 100 * j['effective_gbps'] / copy[j['n']]) < 1e-5 * j['pct_of_copy']
assert r['sweep']['title'].endswith('+ torch/cupy peers'), r['sweep']['title']
"
    plot "$work/merged" throughput pct-copy latency
    # Against itself: eight rows of the committed run are UNSTABLE (noisy or
    # multimodal by their samples), the rest SAME.
    compare "$work/ref" "$work/merged" "56 rows compared: 48 SAME, 0 FASTER, 0 SLOWER, 8 UNSTABLE"
    ;;
topk_current | shuffle_current)
    family=${case%_current}
    "$pb" run "$src/tests/data/peers-$family.ini" --out "$work/run" --quiet >/dev/null 2>&1 ||
        fail "permbench run of tests/data/peers-$family.ini"
    p run --like "$work/run" --out "$work/peers" --synthetic --quiet
    expect_rc 0 run
    if [ "$family" = topk ]; then rows=16 figs="axis-time axis-speedup"; else rows=8 figs="throughput pct-copy latency"; fi
    check_peers "$work/peers" $rows
    # the config and the run it made give the same rows
    p run "$src/tests/data/peers-$family.ini" --dry-run
    expect_rc 0 dry-run config
    mv "$work/out" "$work/plan-config"
    p run --like "$work/run" --dry-run
    expect_rc 0 dry-run like
    cmp -s "$work/out" "$work/plan-config" || fail "the config and its run give different plans"
    p merge "$work/run" "$work/peers" "$work/merged" --allow-synthetic
    expect_rc 0 merge
    # shellcheck disable=SC2086 # one figure a word
    plot "$work/merged" $figs
    n=$(grep -c . "$work/run/results.csv")
    compare "$work/run" "$work/merged" "$((n - 1)) rows compared"
    # A run over several seeds: its results.csv has the seed columns,
    # which the merge keeps (empty on the peers' rows).
    "$pb" run "$src/tests/data/peers-$family.ini" -D sweep.seeds=2 --out "$work/run2" --quiet >/dev/null 2>&1 ||
        fail "permbench run of tests/data/peers-$family.ini over two seeds"
    p merge "$work/run2" "$work/peers" "$work/merged2" --allow-synthetic
    expect_rc 0 merge of a run over two seeds
    "$py" - "$work/run2/results.csv" "$work/merged2/results.csv" <<'PY' || fail "the merged results.csv of a seeded run"
import csv, sys
base, merged = (list(csv.reader(open(f))) for f in sys.argv[1:])
assert base[0][-4:] == ["seeds", "seed_min_ms", "seed_max_ms", "seed_spread_pct"], base[0]
assert merged[0] == base[0], merged[0]
assert merged[1:len(base)] == base[1:], "the run's rows changed"
peers = merged[len(base):]
assert peers and all(len(r) == len(base[0]) and r[-4:] == ["", "", "", ""] for r in peers), peers[:2]
PY
    ;;
config_like_same)
    # A config and a committed run of it give the same peer rows.
    for pair in topk-perf:topk-perf bijective-table1:table1; do
        p run "$src/configs/paper/${pair%%:*}.ini" --dry-run
        expect_rc 0 dry-run "${pair%%:*}.ini"
        mv "$work/out" "$work/a"
        p run --like "$src/results/reference/nvidia-h200/measurement-trust/${pair#*:}" --dry-run
        expect_rc 0 dry-run --like "${pair#*:}"
        cmp -s "$work/a" "$work/out" || fail "${pair%%:*}: config and run give different plans"
    done
    p run "$src/configs/paper/multisplit-perf.ini" --dry-run
    expect_rc 77 multisplit
    one_line
    ;;
driver)
    # scripts/peers/run-peers.sh: the skip without torch and cupy, then the
    # whole chain on synthetic times (peers, merge, figures, compare)
    reference topk-perf
    mkdir -p "$work/hide"
    for m in torch cupy jax; do echo 'raise ImportError("hidden by tests/scripts/peers.sh")' >"$work/hide/$m.py"; done
    PYTHONPATH="$work/hide" PERMBENCH=$pb PYTHON=$py bash "$src/scripts/peers/run-peers.sh" "$work/d" "$work/ref" \
        >"$work/out" 2>"$work/err"
    rc=$?
    expect_rc 0 run-peers.sh without torch
    grep -q 'no peer ran' "$work/out" || fail "run-peers.sh does not say the peers were skipped"
    [ -z "$(ls -A "$work/d")" ] || fail "run-peers.sh wrote something without torch"
    PEERS_SYNTHETIC=1 PEERS_ARGS="--quiet --set max_samples=20" PERMBENCH=$pb PYTHON=$py \
        bash "$src/scripts/peers/run-peers.sh" "$work/d" "$work/ref" >"$work/out" 2>"$work/err"
    rc=$?
    expect_rc 0 run-peers.sh synthetic
    check_peers "$work/d/ref-peers" 112
    [ -s "$work/d/ref-with-peers/results.json" ] || fail "no merged run"
    [ -s "$work/d/ref-vs-peers/compare.json" ] || fail "no comparison"
    grep -q '^56 rows compared' "$work/out" || fail "compare did not set the 56 rows"
    plot "$work/d/ref-with-peers" axis-time axis-speedup
    # PEERS_REUSE: the peers timed before (on a node) are kept as they are,
    # hidden torch and all, and only merged, drawn and compared again
    # (PEERS_SYNTHETIC still needed: it allows merging made-up times)
    sum=$(sha256sum "$work/d/ref-peers/results.json")
    rm -rf "$work/d/ref-with-peers" "$work/d/ref-vs-peers"
    PYTHONPATH="$work/hide" PEERS_REUSE=1 PEERS_SYNTHETIC=1 PERMBENCH=$pb PYTHON=$py \
        bash "$src/scripts/peers/run-peers.sh" "$work/d" "$work/ref" >"$work/out" 2>"$work/err"
    rc=$?
    expect_rc 0 run-peers.sh reuse
    grep -q 'peers taken from' "$work/out" || fail "PEERS_REUSE does not say it reused the peers"
    [ "$(sha256sum "$work/d/ref-peers/results.json")" = "$sum" ] || fail "PEERS_REUSE ran the peers again"
    [ -s "$work/d/ref-vs-peers/compare.json" ] || fail "no comparison from reused peers"
    grep -q '^56 rows compared' "$work/out" || fail "compare of reused peers did not set the 56 rows"
    ;;
no_libraries)
    # torch and cupy shadowed by modules that cannot be imported
    mkdir -p "$work/hide"
    for m in torch cupy jax; do echo 'raise ImportError("hidden by tests/scripts/peers.sh")' >"$work/hide/$m.py"; done
    for like in topk-perf table1; do
        PYTHONPATH="$work/hide" p run --like "$src/results/reference/nvidia-h200/measurement-trust/$like" \
            --out "$work/out-$like"
        expect_rc 77 run "$like"
        one_line
        grep -q 'skipped: .*torch-' "$work/err" || fail "the line does not name what is skipped"
        [ ! -s "$work/out" ] || fail "something on stdout"
        [ ! -e "$work/out-$like" ] || fail "wrote $work/out-$like"
    done
    ;;
bad_*)
    ref="$src/results/reference/nvidia-h200/measurement-trust/topk-perf"
    printf '[sweep]\nfamily = topk\nsizes = 2^10 ..\n\n[gpu-radik]\n' >"$work/bad.ini"
    mkdir -p "$work/full" && echo x >"$work/full/results.json"
    case $case in
    bad_size) p run "$work/bad.ini" --out "$work/o" ;;
    bad_missing_like) p run --like "$work/nowhere" --out "$work/o" ;;
    bad_both_inputs) p run "$work/bad.ini" --like "$ref" --out "$work/o" ;;
    bad_no_out) p run --like "$ref" ;;
    bad_out_has_results) p run --like "$ref" --out "$work/full" ;;
    bad_only) p run --like "$ref" --only torch-nothing --out "$work/o" ;;
    bad_set) p run --like "$ref" --set min_samples=x --out "$work/o" ;;
    bad_option) p run --like "$ref" --frobnicate --out "$work/o" ;;
    bad_not_results) p run --like "$work/full" --out "$work/o" ;;
    bad_merge_family)
        "$py" "$peers" run --like "$ref" --out "$work/p" --synthetic --quiet --set max_samples=10 || fail "run"
        p merge "$src/results/reference/nvidia-h200/measurement-trust/table1" "$work/p" "$work/o" --allow-synthetic ;;
    bad_merge_gpu)
        "$py" "$peers" run --like "$ref" --out "$work/p" --synthetic --quiet --set max_samples=10 || fail "run"
        "$py" - "$work/p/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["provenance"]["gpu"]["name"] = "NVIDIA H100 80GB HBM3"
json.dump(r, open(sys.argv[1], "w"))
EOF
        p merge "$ref" "$work/p" "$work/o" --allow-synthetic ;;
    bad_merge_not_peers) p merge "$ref" "$ref" "$work/o" ;;
    bad_relabel_series)
        "$py" "$peers" run --like "$ref" --out "$work/p" --synthetic --quiet --set max_samples=10 || fail "run"
        p relabel "$work/p" "$work/o" torch-nothing=gpu-radik ;;
    *) fail "unknown case $case" ;;
    esac
    expect_rc 2 "$case"
    one_line
    [ -n "${PEERS_TEST_VERBOSE:-}" ] && cat "$work/err"
    [ ! -e "$work/o" ] || fail "wrote $work/o"
    ;;
*) fail "unknown case $case" ;;
esac
echo "ok: $case"
