#!/usr/bin/env bash
# Sweeps on a user's own keys (`dist = file:PATH`) through the command line.
# The key file: 2^16 fp32 values, little-endian, with ties, NaNs (several
# payloads, both signs), infinities and both zeros. The configs live in a
# directory of their own and name the file relative to it; permbench runs
# from another directory.
#   topk          cpu-topk (fp32 and u32, ragged and misaligned rows, 4 x 2^14
#                 = the whole file) exits 0, every row verified; results.json
#                 names the file (params, provenance.data_files with size and
#                 the SHA-256 of its bytes, checked here independently)
#   multisplit    cpu-multisplit-twin and cpu-multisplit, keys and pairs, exit 0
#   list          dist = file:a, uniform, file:b: labels file1, uniform, file2
#   beyond_topk   4 rows x 2^15 needs 131072 values of the 65536: exit 2,
#                 one stderr line naming both numbers, nothing written
#   beyond_multisplit  n = 2^16+1: likewise (65537, 65536)
#   not_multiple  a file of 2^16 keys and 2 bytes: exit 2, one line
#   missing       no such file: exit 2, one line
#   fifo          a FIFO no one writes to: exit 2, one line, at once (a
#                 reader that waited for a writer would hang until the
#                 test's timeout)
#   resume_changed  an interrupted run resumes on the same file (exit 0) and
#                 is refused (exit 2, one line) once the file changed
#   make_keys     scripts/make-keys.py (the shipped configs' generator): N
#                 little-endian keys, the hard cases of --dist special where
#                 documented and the rest finite in [-1000, 1000), the same
#                 bytes for the same seed and others for another, every
#                 distribution; a bad count exits non-zero and writes nothing
#   shipped       configs/own-data/{topk,multisplit}-file.ini at small sizes
#                 (-D) on a make-keys.py file beside copies of them: every
#                 row, GPU modules included, verified (SKIP in a build
#                 without CUDA, where their GPU modules are unknown; SKIP
#                 without a GPU)
#   own_data.sh PERMBENCH CASE
set -u
pb=$1 case=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; for f in "$work"/*.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
mkdir -p "$work/cfg" "$work/data" "$work/run"
cd "$work/run" || exit 1

python3 - "$work/data/keys.f32" <<'PY' || fail "writing the key file"
import random, struct, sys
random.seed(16)
out = []
for i in range(1 << 16):
    r = i % 16
    if r == 0: out.append(struct.pack("<I", 0x7fc00000 | (i & 0x3fffff)))
    elif r == 1: out.append(struct.pack("<I", 0xff800001 | (i & 0x3fffff)))
    elif r == 2: out.append(struct.pack("<f", float("inf")))
    elif r == 3: out.append(struct.pack("<f", float("-inf")))
    elif r in (4, 5, 6): out.append(struct.pack("<f", 0.5))
    elif r == 7: out.append(struct.pack("<f", -0.0))
    elif r == 8: out.append(struct.pack("<f", 0.0))
    else: out.append(struct.pack("<f", random.uniform(-1000, 1000)))
open(sys.argv[1], "wb").write(b"".join(out))
PY
quick='min_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = none\nceilings = none\n'
topk_ini() {
    printf "[sweep]\nfamily = topk\nsizes = $1\n$quick" >"$work/cfg/tk.ini"
    printf '[f32]\nmodule = cpu-topk\ndist = file:%s\nrows = 4\nk = 100\nragged = yes\nmisalign = yes\nthreads = 2\n' "$2" >>"$work/cfg/tk.ini"
    printf '[u32]\nmodule = cpu-topk\ndist = file:%s\ndtype = u32\nlargest = no\nrows = 4\nk = 1000\nthreads = 2\n' "$2" >>"$work/cfg/tk.ini"
    echo "$work/cfg/tk.ini"
}
ms_ini() {
    printf "[sweep]\nfamily = multisplit\nsizes = $1\nitem = keys, pairs\n$quick" >"$work/cfg/ms.ini"
    printf '[twin]\nmodule = cpu-multisplit-twin\ndist = file:%s\nbucket = range\n' "$2" >>"$work/cfg/ms.ini"
    printf '[omp]\nmodule = cpu-multisplit\ndist = file:%s\nbuckets = 256\nthreads = 2\n' "$2" >>"$work/cfg/ms.ini"
    echo "$work/cfg/ms.ini"
}
keys=$(cd "$work/data" && pwd -P)/keys.f32

# Exit 2, one line on stderr holding every one of the wanted texts, no output directory.
refused() {
    local want
    timeout 60 "$pb" run "$@" --out "$work/o" --quiet >"$work/r.out" 2>"$work/r.err"
    local rc=$?
    [ "$rc" != 124 ] || fail "no answer in 60 s"
    [ "$rc" = 2 ] || fail "exit status $rc, want 2"
    # A loaded test host may add the busy-machine warning: not the line judged.
    sed -i '/^permbench: warning: the machine is busy/d' "$work/r.err"
    [ "$(wc -l <"$work/r.err")" = 1 ] || fail "not one line on stderr"
    for want in "${wants[@]}"; do grep -qF -- "$want" "$work/r.err" || fail "stderr lacks '$want'"; done
    [ ! -e "$work/o" ] || fail "a refused run wrote $work/o"
    echo "ok: $(cat "$work/r.err")"
}

# Every row verified, the file named with its hash.
check_json() {
    python3 - "$1" "$keys" "$2" <<'PY' || fail "results.json"
import hashlib, json, sys
j = json.load(open(sys.argv[1]))
path, rows = sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()
assert j["provenance"]["data_files"] == [{"path": path, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}], j["provenance"]["data_files"]
res = j["results"]
assert len(res) == rows and all(r["verified"] and r["status"] == "ok" for r in res), [(r["label"], r["status"], r["message"]) for r in res]
for i in j["instances"]:
    assert i["params"]["dist"] == "file:" + path, i["params"]
PY
}

case $case in
topk)
    "$pb" run "$(topk_ini '2^10, 2^14' ../data/keys.f32)" --out "$work/o" --quiet >"$work/run.out" 2>"$work/run.err" || fail "exit $?"
    check_json "$work/o/results.json" 4
    echo "ok: top-k on the file, 4 rows verified" ;;
multisplit)
    "$pb" run "$(ms_ini '2^10, 2^16' ../data/keys.f32)" --out "$work/o" --quiet >"$work/run.out" 2>"$work/run.err" || fail "exit $?"
    check_json "$work/o/results.json" 8
    echo "ok: multisplit on the file, 8 rows verified" ;;
list)
    cp "$work/data/keys.f32" "$work/cfg/b.f32"
    printf "[sweep]\nfamily = multisplit\nsizes = 2^12\n$quick[twin]\nmodule = cpu-multisplit-twin\ndist = file:../data/keys.f32, uniform, file:b.f32\n" >"$work/cfg/l.ini"
    "$pb" run "$work/cfg/l.ini" --out "$work/o" --quiet >"$work/run.out" 2>"$work/run.err" || fail "exit $?"
    python3 - "$work/o/results.json" "$keys" "$(cd "$work/cfg" && pwd -P)/b.f32" <<'PY' || fail "results.json of the list"
import json, sys
j = json.load(open(sys.argv[1]))
got = [(i["label"], i["axis_value"], i["params"]["dist"]) for i in j["instances"]]
assert got == [("twin/dist=file1", "file1", "file:" + sys.argv[2]), ("twin/dist=uniform", "uniform", "uniform"),
               ("twin/dist=file2", "file2", "file:" + sys.argv[3])], got
assert [f["path"] for f in j["provenance"]["data_files"]] == [sys.argv[2], sys.argv[3]]
assert all(r["verified"] for r in j["results"]) and len(j["results"]) == 3
PY
    echo "ok: a list of files labelled file1, file2" ;;
beyond_topk)
    wants=("[f32] at n = 2^15" "131072 values, beyond the 65536 in file:$keys")
    refused "$(topk_ini '2^10, 2^15' ../data/keys.f32)" ;;
beyond_multisplit)
    wants=("[twin] at n = 2^16+1" "n = 65537 keys, beyond the 65536 in file:$keys")
    refused "$(ms_ini '2^16+1' ../data/keys.f32)" ;;
not_multiple)
    { cat "$work/data/keys.f32"; printf 'xy'; } >"$work/data/odd.f32"
    wants=("262146 bytes are not a whole number of 4-byte keys (2 left over)" "odd.f32")
    refused "$(topk_ini 2^10 ../data/odd.f32)" ;;
missing)
    wants=("[twin] at n = 2^10" "cannot open (No such file or directory): file:" "data/none.u32")
    refused "$(ms_ini 2^10 ../data/none.u32)" ;;
fifo)
    mkfifo "$work/data/keys.fifo" || fail "mkfifo"
    wants=("[f32] at n = 2^10" "not a regular file: file:" "data/keys.fifo")
    refused "$(topk_ini 2^10 ../data/keys.fifo)" ;;
resume_changed)
    # A finished run made into an interrupted one: its last row dropped,
    # its CSV the partial one.
    "$pb" run "$(ms_ini '2^10, 2^12' ../data/keys.f32)" --out "$work/o" --quiet >"$work/run.out" 2>"$work/run.err" || fail "exit $?"
    python3 - "$work/o/results.json" <<'PY' || fail "making the run interrupted"
import json, sys
j = json.load(open(sys.argv[1]))
j["results"] = j["results"][:-1]
j["summary"]["interrupted"] = True
json.dump(j, open(sys.argv[1], "w"))
PY
    mv "$work/o/results.csv" "$work/o/results.partial.csv"
    cp -r "$work/o" "$work/o2"
    "$pb" run --resume "$work/o" --quiet >"$work/resume.out" 2>"$work/resume.err" || fail "resume on the same file: exit $?"
    check_json "$work/o/results.json" 8
    # One key changed: the same size, other bytes.
    printf '\x01' | dd of="$work/data/keys.f32" bs=1 seek=100 conv=notrunc status=none
    "$pb" run --resume "$work/o2" --quiet >"$work/r.out" 2>"$work/r.err"
    rc=$?
    [ "$rc" = 2 ] || fail "resume on a changed file: exit $rc, want 2"
    sed -i '/^permbench: warning: the machine is busy/d' "$work/r.err"
    [ "$(wc -l <"$work/r.err")" = 1 ] || fail "not one line on stderr"
    grep -qF "the key file changed since the run (SHA-256 " "$work/r.err" || fail "the message"
    grep -qF "now): file:$keys" "$work/r.err" || fail "the message's path"
    echo "ok: resumed on the same file; refused after it changed: $(cat "$work/r.err")" ;;
make_keys)
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    mk=$root/scripts/make-keys.py
    python3 "$mk" "$work/a.bin" --count 2^16 --dist special --seed 3 >"$work/mk.out" || fail "make-keys.py"
    python3 "$mk" "$work/b.bin" --count 65536 --dist special --seed 3 >/dev/null || fail "make-keys.py"
    python3 "$mk" "$work/c.bin" --count 2^16 --dist special --seed 4 >/dev/null || fail "make-keys.py"
    cmp -s "$work/a.bin" "$work/b.bin" || fail "the same seed gave other bytes"
    ! cmp -s "$work/a.bin" "$work/c.bin" || fail "another seed gave the same bytes"
    grep -qF "65536 keys (special, seed 3), 262144 bytes, sha256 $(sha256sum "$work/a.bin" | cut -c1-64)" \
        "$work/mk.out" || fail "make-keys.py's line: $(cat "$work/mk.out")"
    python3 - "$work/a.bin" <<'PY' || fail "the keys of --dist special"
import math, struct, sys
data = open(sys.argv[1], "rb").read()
assert len(data) == 4 * 65536
keys = struct.unpack("<65536I", data)
fixed = {2: 0x7F800000, 3: 0xFF800000, 4: 0x3F000000, 5: 0x3F000000, 6: 0x3F000000,
         7: 0x80000000, 8: 0}
for i, k in enumerate(keys):
    r = i % 16
    if r == 0: assert k == 0x7FC00000 | (i & 0x3FFFFF), (i, hex(k))
    elif r == 1: assert k == 0xFF800001 | (i & 0x3FFFFF), (i, hex(k))
    elif r in fixed: assert k == fixed[r], (i, hex(k))
    else:
        f = struct.unpack("<f", struct.pack("<I", k))[0]
        assert math.isfinite(f) and -1000 <= f < 1000, (i, f)
PY
    for d in uniform normal u32; do
        python3 "$mk" "$work/$d.bin" --count 1000 --dist $d >/dev/null || fail "--dist $d"
        [ "$(stat -c %s "$work/$d.bin")" = 4000 ] || fail "--dist $d: not 4000 bytes"
    done
    python3 - "$work/uniform.bin" "$work/normal.bin" <<'PY' || fail "uniform or normal keys"
import struct, sys
u = struct.unpack("<1000f", open(sys.argv[1], "rb").read())
n = struct.unpack("<1000f", open(sys.argv[2], "rb").read())
assert all(0 <= x < 1 for x in u) and len(set(u)) > 990
assert -6 < min(n) < -1 and 1 < max(n) < 6 and abs(sum(n) / 1000) < 0.2
PY
    for bad in "--count 2^40" "--count 0" "--count x" "--count 10 --dist zipf"; do
        # shellcheck disable=SC2086  # the options are words
        if python3 "$mk" "$work/bad.bin" $bad 2>/dev/null; then fail "make-keys.py $bad passed"; fi
        [ ! -e "$work/bad.bin" ] || fail "make-keys.py $bad wrote a file"
    done
    echo "ok: make-keys.py" ;;
shipped)
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    if ! "$pb" list --brief | grep -q '^gpu-radik '; then echo "skipped: built without CUDA"; exit 77; fi
    if ! "$pb" list --brief | grep -q '^gpu-radik .* yes '; then echo "skipped: no GPU"; exit 77; fi
    cp "$root"/configs/own-data/*.ini "$work/cfg/"
    python3 "$root/scripts/make-keys.py" "$work/cfg/keys/special.bin" --count 2^16 --dist special >/dev/null ||
        fail "make-keys.py"
    keys=$work/cfg/keys/special.bin
    keys=$(cd "$(dirname "$keys")" && pwd -P)/special.bin
    small=(-D sweep.plot=none -D sweep.min_time=0 -D sweep.ceilings=none)
    "$pb" run "$work/cfg/topk-file.ini" -D sweep.sizes=2^12 "${small[@]}" \
        --out "$work/tk" --quiet >"$work/tk.out" 2>"$work/tk.err" || fail "topk-file.ini: exit $?"
    check_json "$work/tk/results.json" 7
    "$pb" run "$work/cfg/multisplit-file.ini" -D sweep.sizes=2^16 "${small[@]}" \
        --out "$work/ms" --quiet >"$work/ms.out" 2>"$work/ms.err" || fail "multisplit-file.ini: exit $?"
    check_json "$work/ms/results.json" 18
    echo "ok: the shipped configs on a key file, every row verified" ;;
*) echo "unknown case $case"; exit 1 ;;
esac
