#!/usr/bin/env bash
# Regenerates the seed corpora of tests/fuzz/corpus/ from what the project
# ships and tests: every config (configs/, tests/data/, the reference runs'
# local copies), the malformed configs of tests/app/cli_errors.sh, the size
# lists and parameter values in them, and small results directories made
# by running permbench. A maintainer's tool (python3 trims the JSON); CI
# replays the committed corpora and never runs it. Inputs the campaign
# added (tests/fuzz/corpus/*/cov-*) and regression inputs (regress-*) are
# kept.
#
#   tests/fuzz/make-seeds.sh BUILD_DIR     (a CPU build with permbench in it)
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pb=$(cd "${1:?usage: make-seeds.sh BUILD_DIR}" && pwd)/permbench
corpus=$root/tests/fuzz/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

for h in ini run_config quality_config sizes params results_json quality_json compare resume journal perm_reader data_file; do
    mkdir -p "$corpus/$h"
    rm -f "$corpus/$h"/seed-*
done
put() { # put HARNESS NAME: stdin into corpus/HARNESS/seed-NAME
    cat >"$corpus/$1/seed-$2"
}

# ---- INI: shipped configs and the CLI's malformed ones ----------------------
for f in configs/*.ini configs/paper/*.ini configs/quality/*.ini configs/own-data/*.ini tests/data/*.ini \
    results/reference/*/*/*.ini; do
    [ -f "$f" ] || continue
    name=$(echo "${f%.ini}" | tr '/' '_')
    for h in ini run_config quality_config; do put "$h" "$name" <"$f"; done
done
grep -o "ini '[^']*'" tests/app/cli_errors.sh | sed "s/^ini '//; s/'\$//" | while IFS= read -r case; do
    name=cli-$(printf '%s' "$case" | sha1sum | cut -c1-12)
    for h in ini run_config quality_config; do printf '%b' "$case" | put "$h" "$name"; done
done

# ---- sizes: every list value in the configs, and the unit tests' cases ------
{
    grep -h -E '^[[:space:]]*(sizes|chisq|mmd|duplicates|[a-z_]*samples|batch|rounds|buckets|block|cutoff)[[:space:]]*=' \
        configs/*.ini configs/*/*.ini tests/data/*.ini | sed 's/^[^=]*=[[:space:]]*//; s/[[:space:]]*;.*$//'
    grep -h -o -E '(parse|pb_size_expr)\("[^"]*"' tests/config/test_sizes.c | sed 's/^[a-z_]*("//; s/"$//'
} | sort -u | while IFS= read -r v; do
    [ -n "$v" ] && printf '%s' "$v" | put sizes "$(printf '%s' "$v" | sha1sum | cut -c1-12)"
done

# ---- params: each parameter of each module at its default, its ends and past them
"$pb" list | awk '
    /^[a-z]/ { mod = $1; next }
    $2 == "default" && $4 == "range" {
        print mod "\t" $1 "\t" $3; n = split($5, r, /\.\.|\|/)
        if ($5 ~ /\.\./) { print mod "\t" $1 "\t" r[1]; print mod "\t" $1 "\t" r[2];
                           print mod "\t" $1 "\t" r[1] - 1; print mod "\t" $1 "\t" r[2] + 1 }
        else for (i = 1; i <= n; i++) print mod "\t" $1 "\t" r[i]
    }' | while IFS=$'\t' read -r mod param value; do
    printf '%s\n%s\n%s' "$mod" "$param" "$value" | put params "$mod-$param-$value"
done
printf 'cpu-fisher-yates\nthreads\n1' | put params fisher-yates-unknown-param
printf 'cpu-bijective-twin\nrounds\n2^5' | put params bijective-twin-rounds-pow
printf 'cpu-bijective-twin\nbijection\nphilox' | put params bijective-twin-bijection-bad
for v in 0 -9223372036854775808 9223372036854775807 2^62 x; do
    printf 'fuzz-edge\nwhole\n%s' "$v" | put params "edge-whole-$v"
done
for v in a bb "" only yes no; do printf 'fuzz-edge\npick\n%s' "$v" | put params "edge-pick-$v"; done
printf 'fuzz-edge\nflag\nOn' | put params edge-flag-on
for v in a file:keys.bin file: file:PATH "file:../data/k.f32" "file:/tmp//k"; do
    printf 'fuzz-edge\nsrc\n%s' "$v" | put params "edge-src-$(printf '%s' "$v" | tr -c 'a-zA-Z0-9.' '_')"
done
printf 'cpu-topk\ndist\nfile:keys.f32' | put params omp-topk-dist-file
printf 'cpu-multisplit-twin\ndist\nfile:/tmp/../keys.u32' | put params multisplit-twin-dist-file

# ---- results.json: small runs (samples trimmed; the reader does not read them)
trim() { # trim FILE: the JSON (plain or .gz) with at most two result rows and no raw samples
    python3 - "$1" <<'PY'
import gzip, json, sys
d = json.load((gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt"))
if isinstance(d.get("results"), list):
    d["results"] = d["results"][:2]
    for r in d["results"]:
        r.pop("samples_s", None)
if isinstance(d.get("rows"), list):
    d["rows"] = d["rows"][:12]
json.dump(d, sys.stdout, indent=1)
PY
}
for c in tests/data/tiny.ini tests/data/axis-numeric.ini tests/data/axis-words.ini; do
    n=$(basename "$c" .ini)
    "$pb" run "$c" --out "$work/$n" --quiet >/dev/null
    trim "$work/$n/results.json" | put results_json "$n"
    trim "$work/$n/results.json" | put compare "$n"
    # resume reads an interrupted run: the same file marked so.
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("summary",{})["interrupted"]=True; json.dump(d,sys.stdout,indent=1)' \
        "$work/$n/results.json" | put resume "$n"
done
# compare: a reference run of each family (rows with many samples, GPU provenance)
for f in results/reference/nvidia-h200/multisplit/table8/results.json.gz; do
    trim "$f" | put compare "$(basename "$(dirname "$f")")"
done
"$pb" run tests/data/tiny.ini --out "$work/d" --quiet -D sweep.sizes=2^4 >/dev/null
trim "$work/d/results.json" | put resume tiny-define
# journal: a run whose results.json found the disk full keeps its whole
# journal; the same cut in its last line, and with its header alone.
PERMBENCH_TEST_ENOSPC=results.json "$pb" run tests/data/tiny.ini --out "$work/j" --quiet -D sweep.sizes=2^4,2^6 \
    >/dev/null 2>&1 || true
put journal tiny <"$work/j/journal.jsonl"
head -c -40 "$work/j/journal.jsonl" | put journal tiny-torn
head -n 1 "$work/j/journal.jsonl" | put journal header-only

# ---- permutation streams (quality --input): byte 0 the format (0 u32, 1
# u64, 2 text), byte 1 n - 1, byte 2 the batch - 1, then the rows
le() { python3 -c 'import struct,sys; w=int(sys.argv[1]); sys.stdout.buffer.write(bytes(map(int,sys.argv[2:5]))+b"".join(v.to_bytes(w,"little") for v in map(int,sys.argv[5:])))' "$@"; }
le 4 0 4 2 0 1 2 3 4 4 3 2 1 0 2 0 1 3 4 | put perm_reader u32-n5
le 8 1 4 0 4 3 2 1 0 0 1 2 3 4 | put perm_reader u64-n5
le 4 0 2 1 0 1 2 0 1 3 | put perm_reader u32-out-of-range
le 4 0 2 1 0 0 2 | put perm_reader u32-repeat
le 4 0 2 1 0 1 | put perm_reader u32-truncated
printf '\002\004\001 0 1 2 3 4\n4 3 2 1 0\n\n1 0 2 4 3\n' | put perm_reader text-n5
printf '\002\004\0000 1 2 3\n0 1 2 3 4 5\n' | put perm_reader text-short-long
printf '\002\002\0000 x 1\r\n2 1 0' | put perm_reader text-bad-number
printf '\002\000\000 0\n0\n+0\n-0\n00\n' | put perm_reader text-n1

# ---- quality.json: a small run with a swept parameter, and the reference speed runs
cat >"$work/q.ini" <<'INI'
[quality]
title = seed: rounds
seed = 7
gate = no
plot = sweep
mmd = 5, 20
mmd_samples = 200
duplicates = 20
duplicates_samples = 1000

[twin]
module = cpu-bijective-twin
rounds = 1 .. 4 +1

[lcg]
module = cpu-bijective-twin
bijection = lcg

[cpu-fisher-yates]
INI
"$pb" quality "$work/q.ini" --out "$work/q" --quiet >/dev/null
trim "$work/q/quality.json" | put quality_json sweep
for f in results/reference/nvidia-h200/quality/speed/*/quality.json; do
    trim "$f" | put quality_json "$(basename "$(dirname "$f")")"
done
# ---- data_file: key files (a header byte, need, batch, then the file) and paths
# (tests/fuzz/fuzz_data_file.c says the layout): fp32 keys with NaNs,
# infinities, ties and zeros; every key width; a file one byte short of a
# whole key; need 0, the whole file, one past it and 2^60; paths relative,
# absolute, through "..", at the root, with "//", long.
python3 - "$corpus/data_file" <<'PY'
import os, struct, sys
out = sys.argv[1]
def put(name, data):
    open(os.path.join(out, "seed-" + name), "wb").write(data)
def key_file(width_bits, need, batch, body, raw=False):
    return bytes([width_bits | (8 if raw else 0)]) + struct.pack("<Q", need) + bytes([batch]) + body
f32 = b"".join(struct.pack("<I", v) for v in
               [0x7fc00001, 0xff800001, 0x7f800000, 0xff800000, 0x3f000000, 0x3f000000,
                0x80000000, 0, 0x3f800000, 0xbf800000, 0x447a0000, 0xc47a0000, 1, 0xffffffff,
                0x7fffffff, 0x80000001])
put("f32-whole", key_file(2, 16, 5, f32, raw=True))
put("f32-first", key_file(2, 3, 1, f32, raw=True))
put("f32-beyond", key_file(2, 17, 4, f32, raw=True))
put("f32-huge-need", key_file(2, 1 << 60, 16, f32, raw=True))
put("f32-max-need", key_file(2, (1 << 64) - 1, 255, f32, raw=True))
put("f32-odd", key_file(2, 1, 3, f32 + b"xy"))
put("u8", key_file(0, 5, 2, bytes(range(40))))
put("u16", key_file(1, 7, 3, bytes(range(40)) + b"z"))
put("u64", key_file(3, 4, 0, bytes(range(64))))
put("u64-odd", key_file(3, 1, 1, bytes(range(63))))
put("empty", key_file(2, 0, 1, b"", raw=True))
put("empty-need-one", key_file(2, 1, 1, b"", raw=True))
def paths(text):
    return bytes([4]) + text.encode()
put("path-relative", paths("keys.u32\n/tmp"))
put("path-parent", paths("../data/keys.f32\ncfg"))
put("path-absolute", paths("/tmp/keys.f32\n"))
put("path-slashes", paths("a//b/\ncfg/"))
put("path-dots", paths("./././k\n."))
put("path-proc", paths("/proc/self/cwd/../k"))
put("path-empty", paths("\n"))
put("path-long", paths("k" * 1100 + "\n/tmp"))
PY

for h in ini run_config quality_config sizes params results_json quality_json compare resume journal perm_reader data_file; do
    echo "$h: $(find "$corpus/$h" -type f | wc -l) inputs"
done
