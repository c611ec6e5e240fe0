#!/usr/bin/env bash
# gpu-own-data-check.sh OUT_DIR: top-k and multisplit sweeps on a user's own
# keys (`dist = file:PATH`) on a GPU node, in one command, after
# scripts/gpu-node-build.sh has built build-gpu/ (run from the repository
# root):
#
#   scripts/gpu-node-build.sh && scripts/gpu-own-data-check.sh OUT_DIR
#
#  1. the key file: scripts/make-keys.py writes 2^24 fp32 keys with NaNs,
#     infinities, ties and both zeros (--dist special) to
#     configs/own-data/keys/special.bin, where the configs name it;
#  2. the tests: ctest -R own_data (the unit tests; gpu_own_data, every GPU
#     top-k and multisplit module on a key file; the command-line cases,
#     the shipped configs at small sizes among them);
#  3. the sweeps: configs/own-data/topk-file.ini (gpu-radik, gpu-sort-and-choose,
#     cpu-topk) and configs/own-data/multisplit-file.ini (multisplit, gpu-bms,
#     gpu-dms, gpu-wms, gpu-rb-sort, gpu-cub-radix-sort, gpu-scan-split, cpu-multisplit);
#  4. each results.json checked here: every row verified, each instance's
#     dist the key file, provenance.data_files its path, size and SHA-256
#     (computed here with Python's hashlib, not by permbench).
#
# gpu-node-build.sh builds the bundle's source archive (build-gpu-src/),
# not this tree: the configs and make-keys.py are taken from the source the
# build was configured from (its CMakeCache.txt), so they match the binary,
# and from this tree only when the build has no such record.
#
# OUT_DIR gets summary.txt (each step's exit status and time, the rows) and
# own-data.tar.gz (every log and both results directories). Exit status 0
# when every step passed, 1 otherwise. Expected: a few minutes.
#
# Environment: PB_BUILD_DIR (default build-gpu).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/gpu-own-data-check.sh OUT_DIR}
build=${PB_BUILD_DIR:-$root/build-gpu}
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$src" ] && [ -f "$src/configs/own-data/topk-file.ini" ] || src=$root
pb=$build/permbench
[ -x "$pb" ] || { echo "gpu-own-data-check.sh: no $pb (run scripts/gpu-node-build.sh)" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$out/own-data-work
rm -rf "$work"
mkdir -p "$work"
summary=$work/summary.txt
: >"$summary"
bad=0
# The bundle's tools (gnuplot for the figures) and libraries.
for e in /opt/permbench-deps/env.sh "${HOME:-/nonexistent}/.local/permbench-deps/env.sh"; do
    # shellcheck source=/dev/null
    [ -f "$e" ] && . "$e"
done
# shellcheck source=scripts/lib/step.sh
. "$root/scripts/lib/step.sh"
step_width=44

keys=$src/configs/own-data/keys/special.bin
{ echo "source: $src"; echo "build: $build"; "$pb" info; nvidia-smi; } >"$work/info.txt" 2>&1
step "make-keys.py (2^24 fp32, special)" "$work/make-keys.log" \
    python3 "$src/scripts/make-keys.py" "$keys" --count 2^24 --dist special
step "ctest -R own_data" "$work/ctest.log" \
    ctest --test-dir "$build" -R own_data -j "${PB_CTEST_JOBS:-4}" --output-on-failure
cat "$work/make-keys.log" >>"$summary"
grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: |tests passed|tests failed' "$work/ctest.log" >>"$summary"
for c in topk-file multisplit-file; do
    step "run $c.ini" "$work/$c.log" "$pb" run "$src/configs/own-data/$c.ini" --out "$work/$c"
    step "check $c/results.json" "$work/check-$c.log" python3 - "$work/$c/results.json" "$keys" <<'PY'
import hashlib, json, os, sys
j = json.load(open(sys.argv[1]))
path = os.path.realpath(sys.argv[2])
data = open(path, "rb").read()
want = [{"path": path, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}]
assert j["provenance"]["data_files"] == want, (j["provenance"]["data_files"], want)
inst = {i["label"]: i for i in j["instances"]}
params = lambda r: inst.get(r["label"], {}).get("params", {})
rows = j["results"]
bad = [(r["label"], r["n"], r["status"], r["message"]) for r in rows if not (r["verified"] and r["status"] == "ok")]
assert not bad, bad
for r in rows:
    if "dist" in params(r):  # the ceilings have none
        assert params(r)["dist"] == "file:" + path, (r["label"], params(r)["dist"])
on_file = [r for r in rows if "dist" in params(r)]
gpu = sorted({r["module"] for r in on_file if r["device"] == "gpu"})
print(f"{len(rows)} rows verified, {len(on_file)} on the key file; GPU modules: {', '.join(gpu)}")
for r in on_file:
    print(f'  {r["label"]:28} {r["device"]} n={r["n"]:<9} item={r["item_bytes"]} '
          f'median {r["median_ms"]:.4f} ms, {r["effective_gbps"] or 0:.1f} GB/s')
assert gpu, "no GPU module ran"
PY
    cat "$work/check-$c.log" >>"$summary"
done
tar -czf "$out/own-data.tar.gz" -C "$work" .
cp "$summary" "$out/summary.txt"
rm -rf "$work"
cat "$out/summary.txt"
exit $bad
