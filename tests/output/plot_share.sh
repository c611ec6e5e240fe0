#!/usr/bin/env bash
# The share-of-one-read figure (plot = share-one-read, output/plot_share.h)
# from a small fixture run: share-one-read.csv holds, per line (module and
# axis value), each shape's median time and pct_of_copy (the row's bytes
# over the copy's GB/s: one read at the copy's rate), the shapes ordered
# by rows, n, bytes; a row without a copy has NaN; the copies and rows
# not ok are left out; two sections of one module at one shape get a line each, named by the
# section; both figures are whole. Then a real CPU top-k run asking for the
# figure draws it.
#   plot_share.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; cat "$work"/*.err 2>/dev/null; exit 1; }
command -v gnuplot >/dev/null || [ -n "${PERMBENCH_GNUPLOT:-}" ] || { echo "skipped: no gnuplot"; exit 77; }
mkdir -p "$work/fx"
python3 - "$work/fx" <<'PY'
import json, sys
d = sys.argv[1]
def inst(label, series, module, params, axis="k", value=""):
    return {"label": label, "series": series, "axis": axis, "axis_value": value, "module": module,
            "family": "topk", "device": "gpu", "params": params, "automatic": False}
def row(label, series, module, n, ms, gbps, pct, value="", status="ok"):
    return {"label": label, "series": series, "module": module, "family": "topk", "device": "gpu", "n": n,
            "item_bytes": 4, "axis": "k" if value else "", "axis_value": value, "status": status,
            "median_ms": ms, "effective_gbps": gbps, "pct_of_copy": pct, "samples": 1, "samples_ms": [ms]}
I = [inst("copy", "copy", "copy", {}, "", ""),
     inst("radik-64-f16/k=1", "radik-64-f16", "gpu-radik", {"rows": 64, "dtype": "f16", "k": 1}, "k", "1"),
     inst("radik-64-f16/k=4096", "radik-64-f16", "gpu-radik", {"rows": 64, "dtype": "f16", "k": 4096}, "k", "4096"),
     inst("radik-1-f32/k=1", "radik-1-f32", "gpu-radik", {"rows": 1, "dtype": "f32", "k": 1}, "k", "1"),
     inst("radik-64-f16-multi/k=1", "radik-64-f16-multi", "gpu-radik", {"rows": 64, "dtype": "f16", "k": 1, "cluster": "off"}, "k", "1"),
     inst("sac-64-f16/k=1", "sac-64-f16", "gpu-sort-and-choose", {"rows": 64, "dtype": "f16", "k": 1}, "k", "1")]
R = [row("copy", "copy", "copy", 131072, 0.004, 262.1, 100.0),
     row("copy", "copy", "copy", 8388608, 0.03, 2236.9, 100.0),
     # 64 x 2^17 fp16: 16 MiB read; the copy of 2^23 u32 at 2236.9 GB/s
     row("radik-64-f16/k=1", "radik-64-f16", "gpu-radik", 131072, 0.02, 838.9, 37.5, "1"),
     row("radik-64-f16/k=4096", "radik-64-f16", "gpu-radik", 131072, 0.05, 335.5, 15.0, "4096"),
     row("radik-1-f32/k=1", "radik-1-f32", "gpu-radik", 131072, 0.01, 52.4, 20.0, "1"),
     row("radik-1-f32/k=1", "radik-1-f32", "gpu-radik", 32000, 0.009, 14.2, None, "1"),
     row("radik-64-f16-multi/k=1", "radik-64-f16-multi", "gpu-radik", 131072, 0.04, 419.4, 18.75, "1"),
     row("sac-64-f16/k=1", "sac-64-f16", "gpu-sort-and-choose", 131072, 0.5, 33.6, 1.5, "1"),
     row("sac-64-f16/k=1", "sac-64-f16", "gpu-sort-and-choose", 32000, 0.4, 10.2, 1.0, "1", status="FAILED")]
json.dump({"schema_version": 2, "provenance": {"git": {"commit": "abcdef0"}, "gpu": {"name": "Test GPU"}},
           "sweep": {"family": "topk", "title": "fixture", "plots": ["share-one-read"], "item_bytes": [4],
                     "sizes": [32000, 131072]},
           "instances": I, "results": R}, open(d + "/results.json", "w"))
open(d + "/results.csv", "w").write("label,n\n")
PY
"$pb" plot "$work/fx" >"$work/fx.out" 2>"$work/fx.err" || fail "plot exit $?"
python3 - "$work/fx/share-one-read.csv" <<'PY' || fail "share-one-read.csv"
import sys
blocks = [[l.split(",") for l in b.strip().split("\n") if not l.startswith("#")]
          for b in open(sys.argv[1]).read().split("\n\n\n")]
# lines in order of first appearance: gpu-radik/k=1, gpu-radik/k=4096, the second
# gpu-radik section at 64 x 2^17 fp16 (named by its section), gpu-sort-and-choose.
# shapes: 1x32000-f32 (1), 1x2^17-f32 (2), 64x2^17-f16 (3).
want = [[["1", "0.009", "NaN"], ["2", "0.01", "20"], ["3", "0.02", "37.5"]],
        [["3", "0.05", "15"]],
        [["3", "0.04", "18.75"]],
        [["3", "0.5", "1.5"]]]
assert blocks == want, blocks
PY
for f in png svg; do [ -s "$work/fx/share-one-read.$f" ] || fail "no share-one-read.$f"; done
for w in 1x32000-f32 1x2^17-f32 64x2^17-f16 radik-64-f16-multi/k=1 gpu-sort-and-choose/k=1 "share of one read"; do
    grep -qF "$w" "$work/fx/share-one-read.svg" || fail "the figure does not show '$w'"
done
grep -q "^figure: $work/fx/share-one-read.png" "$work/fx.out" || fail "plot did not name the figure"

# A real CPU run asking for it: cpu-topk, 4 rows of fp16 and of fp32, k an axis.
printf '[sweep]\nfamily = topk\nsizes = 2^10, 2^12\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nflush_cache = no\nplot = share-one-read\n[h]\nmodule = cpu-topk\nrows = 4\ndtype = f16\nk = 1, 8\n[s]\nmodule = cpu-topk\nrows = 4\nk = 1, 8\nthreads = 1\n' >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$work/run" --quiet 2>"$work/run.err" || fail "run exit $?"
python3 - "$work/run" <<'PY' || fail "the run's share-one-read.csv"
import json, sys
d = sys.argv[1]
blocks = [[l.split(",") for l in b.strip().split("\n") if not l.startswith("#")]
          for b in open(d + "/share-one-read.csv").read().split("\n\n\n")]
assert len(blocks) == 2, blocks  # cpu-topk/k=1, cpu-topk/k=8; four shapes each
rows = json.load(open(d + "/results.json"))["results"]
for b in blocks:
    assert [p[0] for p in b] == ["1", "2", "3", "4"], b  # 4x2^10-f16, 4x2^10-f32, 4x2^12-f16, 4x2^12-f32
ok = [r for r in rows if r["module"] == "cpu-topk" and r["axis_value"] == "8" and r["n"] == 1024 and r["series"] == "h"][0]
p = blocks[1][0]
assert abs(float(p[1]) - ok["median_ms"]) <= 1e-8 * ok["median_ms"], (p, ok["median_ms"])
assert abs(float(p[2]) - ok["pct_of_copy"]) <= 1e-5 * float(p[2]), (p, ok["pct_of_copy"])
PY
[ -s "$work/run/share-one-read.png" ] || fail "the run drew no share-one-read.png"
echo "ok: share of one read from a fixture and from a CPU run"
