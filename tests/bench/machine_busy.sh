#!/usr/bin/env bash
# A busy machine is detected and recorded: with a busy loop on every
# logical CPU, a small run warns once on stderr, marks every row busy in
# results.json and results.csv, and records the runnable processes and the
# load in results.json's "machine" object (before, during, after). The
# loops are this test's own children, killed by their ids however it ends.
#   machine_busy.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
loops=()
stop_loops() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'stop_loops; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work"/run.err 2>/dev/null; exit 1; }
cpus=$(nproc)
for _ in $(seq "$cpus"); do
    (while :; do :; done) &
    loops+=($!)
done
sleep 0.5
printf '[sweep]\nsizes = 2^10, 2^14\nitem = u64\nwarmup = 1\nmin_samples = 3\nmax_samples = 5\nmin_time = 0\ntimeout = 2\nplot = none\n[cpu-fisher-yates]\n' >c.ini
"$pb" run c.ini --out o --quiet >run.out 2>run.err || fail "run: exit $?"
stop_loops
[ "$(grep -c 'warning: the machine is busy' run.err)" = 1 ] || fail "no single busy warning on stderr"
grep -q 'runnable task(s) of other processes' run.err || fail "the warning does not say why"
python3 - "$cpus" <<'PY' || fail "results.json / results.csv"
import csv, json, sys
cpus = int(sys.argv[1])
j = json.load(open("o/results.json"))
m = j["machine"]
assert m["busy"] is True, m
assert m["busy_threshold"]["others_runnable"] == max(1, (cpus + 1) // 2), m["busy_threshold"]
# Every loop is runnable at every reading.
assert m["during"]["max_others_runnable"] >= cpus, m["during"]
assert m["during"]["busy_points"] == len(j["results"]) == 6, m["during"]
for k in ("before", "after"):
    s = m[k]
    assert s["others_runnable"] >= cpus and s["load_1m"] > 0, s
    assert "cpu_governor" in s and "gpu" in s, s
rows = j["results"]
assert all(r["busy"] is True for r in rows), [(r["label"], r["busy"]) for r in rows]
assert j["summary"]["busy_rows"] == len(rows)
c = list(csv.DictReader(open("o/results.csv")))
assert [r["busy"] for r in c] == ["yes"] * len(rows), [r["busy"] for r in c]
PY
echo "ok: busy warning, $(python3 -c 'import json; print(json.load(open("o/results.json"))["machine"]["during"])')"
