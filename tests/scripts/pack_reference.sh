#!/usr/bin/env bash
# scripts/pack-reference.sh: results.json becomes results.json.gz (the same
# bytes unpacked), an SVG with its PNG beside a run's results goes (and
# `permbench plot` draws it again from the packed run, where gnuplot is),
# every other SVG stays, a second pass finds nothing, a missing folder is
# exit 2.
#   pack_reference.sh PERMBENCH SOURCE_DIR
set -u
pb=$1 src=$2
pack=$src/scripts/pack-reference.sh
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; exit 1; }

run=$work/ref/run sub=$work/ref/run/figs other=$work/ref/other
mkdir -p "$sub" "$other"
printf '{"schema_version": 2}\n' >"$run/results.json"
cp "$run/results.json" "$work/orig.json"
for f in "$run/a.png" "$run/a.svg" "$run/lone.svg" "$sub/c.png" "$sub/c.svg" "$other/d.png" \
    "$other/d.svg"; do echo x >"$f"; done

"$pack" "$work/ref" >"$work/out" 2>&1 || fail "exit $?: $(cat "$work/out")"
grep -q "packed 1 results.json .* removed 1 SVG" "$work/out" || fail "summary: $(cat "$work/out")"
[ ! -e "$run/results.json" ] && gzip -dc "$run/results.json.gz" | cmp -s - "$work/orig.json" ||
    fail "results.json.gz is not results.json packed"
[ ! -e "$run/a.svg" ] && [ -s "$run/a.png" ] || fail "a.svg (its PNG and the run beside it) was kept"
[ -e "$run/lone.svg" ] || fail "an SVG without its PNG was removed"
[ -e "$sub/c.svg" ] && [ -e "$other/d.svg" ] || fail "an SVG away from a run's results was removed"

"$pack" "$work/ref" >"$work/out" 2>&1 || fail "second pass: exit $?"
grep -q "no plain results.json or redrawable SVG" "$work/out" || fail "second pass: $(cat "$work/out")"

"$pack" "$work/nowhere" >"$work/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$work/out")" -eq 1 ] || fail "a missing folder: exit $rc, $(cat "$work/out")"

# The round trip the removal relies on: a real run, packed, draws its SVG again.
if command -v gnuplot >/dev/null || [ -n "${PERMBENCH_GNUPLOT:-}" ]; then
    printf '[sweep]\nsizes = 2^10, 2^11\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = throughput\n[cpu-fisher-yates]\n' \
        >"$work/c.ini"
    "$pb" run "$work/c.ini" --out "$work/real" >/dev/null 2>&1 || fail "run exit $?"
    [ -s "$work/real/throughput.svg" ] || fail "the run drew no SVG"
    "$pack" "$work/real" >/dev/null 2>&1 || fail "packing the run: exit $?"
    [ ! -e "$work/real/throughput.svg" ] && [ -s "$work/real/throughput.png" ] ||
        fail "the run's SVG was kept, or its PNG lost"
    "$pb" plot "$work/real" >/dev/null 2>&1 || fail "plot of the packed run: exit $?"
    [ -s "$work/real/throughput.svg" ] || fail "plot did not draw the SVG again"
fi
echo "ok"
