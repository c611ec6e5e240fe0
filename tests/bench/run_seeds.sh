#!/usr/bin/env bash
# seeds = N: every point measured over N seeds.
#  - a CPU top-k sweep (cpu-topk, small n) with seeds = 3: each row records
#    3 seeds (the first the sweep's own, all distinct), their sample counts
#    adding up to the row's samples, each seed's median that of its own
#    samples, and the row's median the median of the three; results.csv
#    appends seeds, seed_min_ms, seed_max_ms and seed_spread_pct after
#    `path`, the same numbers; the table marks each row "(3 seeds, spread ..)";
#  - a section's own `seeds` wins over the sweep's (the ceiling, given none,
#    stays at the sweep's one seed);
#  - the default (and seeds = 1) writes neither the columns nor the fields;
#  - killed mid-sweep, `run --resume` keeps every journaled seeds row bit for
#    bit and finishes with the seed fields on every row;
#  - --dry-run's bound (every point to its timeout) is N times one seed's.
#   run_seeds.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/stopping.sh"
cfg() { # SEEDS-LINE SECTION-LINE SIZES SAMPLES
    printf '[sweep]\nfamily = topk\nsizes = %s\n%s\nseed = 77\nmin_samples = %s\nmax_samples = %s\nmin_time = 0\nflush_cache = no\nplot = none\n[cpu-topk]\nk = 16\nthreads = 1\n%s\n' \
        "$3" "$1" "$4" "$4" "$2"
}
cfg 'seeds = 3' '' '2^12, 2^13' 7 >"$work/s3.ini"
"$pb" run "$work/s3.ini" --out "$work/s3" >"$work/s3.out" 2>"$work/s3.err" || fail "seeds = 3: exit $?"
python3 - "$work/s3" <<'PY' || fail "seeds = 3: the rows"
import csv, json, statistics, sys
d = json.load(open(sys.argv[1] + "/results.json"))
assert d["sweep"]["seeds"] == 3 and d["sweep"]["seed"] == "77"
rows = d["results"]
assert len(rows) == 4, len(rows)  # cpu-copy and cpu-topk at two sizes
for r in rows:
    assert r["seeds"] == 3, r["label"]
    vals = r["seed_values"]
    assert vals[0] == "77" and len(set(vals)) == 3, vals
    counts = r["seed_samples"]
    assert counts == [7, 7, 7] and sum(counts) == r["samples"] == len(r["samples_ms"]), counts
    meds = [statistics.median(r["samples_ms"][7 * i:7 * i + 7]) for i in range(3)]
    assert all(abs(a - b) <= 1e-12 * b for a, b in zip(meds, r["seed_median_ms"])), (meds, r["seed_median_ms"])
    m = statistics.median(meds)
    assert abs(r["median_ms"] - m) <= 1e-12 * m, (r["median_ms"], m)
    assert r["seed_min_ms"] == min(r["seed_median_ms"]) and r["seed_max_ms"] == max(r["seed_median_ms"])
    spread = 100 * (max(meds) - min(meds)) / m
    assert abs(r["seed_spread_pct"] - spread) <= 1e-6 * (spread + 1), (r["seed_spread_pct"], spread)
    # The interval is the median seed's own: it holds the row's median.
    assert r["median_ci_lo_ms"] <= r["median_ms"] <= r["median_ci_hi_ms"], r["label"]
rd = csv.DictReader(open(sys.argv[1] + "/results.csv"))
assert rd.fieldnames[-5:] == ["path", "seeds", "seed_min_ms", "seed_max_ms", "seed_spread_pct"], rd.fieldnames
for c, r in zip(rd, rows):
    assert c["label"] == r["label"] and c["seeds"] == "3"
    assert float(c["median_ms"]) == float("%.6g" % r["median_ms"])
    assert float(c["seed_min_ms"]) == float("%.6g" % r["seed_min_ms"])
    assert float(c["seed_max_ms"]) == float("%.6g" % r["seed_max_ms"])
    assert abs(float(c["seed_spread_pct"]) - r["seed_spread_pct"]) <= 0.0006
PY
[ "$(grep -c ' (3 seeds, spread [0-9.]*%)$' "$work/s3.out")" = 4 ] || fail "the table does not mark the 4 rows"
grep -q '^# (N seeds, spread S%)' "$work/s3.out" || fail "no legend for the seeds marker"

# A section's own seeds; the ceiling keeps the sweep's one.
cfg '' 'seeds = 2' '2^12' 6 >"$work/own.ini"
"$pb" run "$work/own.ini" --out "$work/own" --quiet 2>"$work/own.err" || fail "seeds in a section: exit $?"
python3 - "$work/own" <<'PY' || fail "seeds in a section"
import csv, json, sys
rows = {r["module"]: r for r in json.load(open(sys.argv[1] + "/results.json"))["results"]}
assert rows["cpu-topk"]["seeds"] == 2 and "seeds" not in rows["cpu-copy"], rows.keys()
c = {r["module"]: r for r in csv.DictReader(open(sys.argv[1] + "/results.csv"))}
assert c["cpu-topk"]["seeds"] == "2" and c["cpu-copy"]["seeds"] == "1" and c["cpu-copy"]["seed_spread_pct"] == "0.000"
PY

# One seed, by default or by name: none of it.
for s in '' 'seeds = 1'; do
    cfg "$s" '' '2^12' 6 >"$work/one.ini"
    rm -rf "$work/one"
    "$pb" run "$work/one.ini" --out "$work/one" >"$work/one.out" 2>"$work/one.err" || fail "one seed: exit $?"
    head -1 "$work/one/results.csv" | grep -q ',path$' || fail "one seed ($s): the CSV has seed columns"
    ! grep -q '"seed[s_]' "$work/one/results.json" || fail "one seed ($s): results.json has seed fields"
    ! grep -q 'seeds' "$work/one.out" || fail "one seed ($s): the table speaks of seeds"
done

# Killed mid-sweep, then resumed: the journaled seeds rows kept bit for bit.
cfg 'seeds = 3' '' '2^14, 2^15, 2^16, 2^17' 12 >"$work/k.ini"
"$pb" run "$work/k.ini" --out "$work/k" --quiet >"$work/k.out" 2>"$work/k.err" &
pid=$!
stop_when "$work/k/journal.jsonl" 3 KILL "$pid"
kept=$(rows rows "$work/k/journal.jsonl" "$work/before.json") || fail "the journal does not read"
[ "$kept" -ge 2 ] && [ "$kept" -lt 8 ] || fail "$kept rows journaled, want 2 to 7"
python3 -c "import json,sys; assert all(r['seeds'] == 3 and len(r['seed_samples']) == 3 for r in json.load(open(sys.argv[1])))" \
    "$work/before.json" || fail "a journaled row without its three seeds"
"$pb" run --resume "$work/k" "$work/k.ini" --quiet >"$work/resume.out" 2>"$work/resume.err" || fail "resume exit status $?"
rows complete "$work/k/results.json" 8 || fail "results.json is not the finished run"
rows kept "$work/before.json" "$work/k/results.json" || fail "a journaled seeds row changed on resume"
python3 -c "import json,sys; assert all(r['seeds'] == 3 for r in json.load(open(sys.argv[1]))['results'])" \
    "$work/k/results.json" || fail "a resumed row without its seeds"
[ "$(head -1 "$work/k/results.csv" | tr ',' '\n' | tail -1)" = seed_spread_pct ] || fail "the resumed CSV lost the seed columns"

# The dry run's bound: every point to its timeout, once a seed.
bound() { "$pb" run "$work/one.ini" --dry-run -D sweep.timeout=10 "$@" 2>/dev/null | sed -n 's/.*at most about \([0-9ms]*\) .*/\1/p'; }
[ "$(bound)" = 20s ] || fail "one seed: the dry run's bound is '$(bound)', want 20s (2 points x 10 s)"
[ "$(bound -D sweep.seeds=3)" = 1m00s ] || fail "-D sweep.seeds=3: the dry run's bound is '$(bound -D sweep.seeds=3)', want 1m00s"
echo "ok: seeds rows, columns, a section's own seeds, one seed unchanged, resume, dry run"
