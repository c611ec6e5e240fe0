#!/usr/bin/env bash
# gpu-radik's cluster path by the code the device runs: with sm_90 code on a
# 9.0 device, `cluster = on` and `auto` take it (the rows' path says
# "cluster"); below (an older GPU, or a build that reaches this one through
# compute_80 PTX: scripts/gpu-ptx-mode.sh) `on` is refused before the sweep
# with one line and exit 2, and `auto` takes the multi-pass query.
#   cluster_arch.sh PERMBENCH
set -u
pb=$1
json=$("$pb" info --json 2>/dev/null) || { echo "FAIL: info --json"; exit 1; }
read -r cc ptx < <(python3 -c '
import json, sys
g = json.load(sys.stdin)["gpu"]
if not g.get("present"): print("0 0"); sys.exit()
a, b = g["compute_capability"].split(".")
print(10 * int(a) + int(b), g["code"]["ptx_version"])' <<<"$json")
[ "$cc" -gt 0 ] || { echo "skipped: no GPU"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cfg() { # cfg NAME CLUSTER
    printf '[sweep]\nfamily = topk\nsizes = 2^16\nitem = u32\nseed = 1\nmin_samples = 2\nmin_time = 0\nplot = none\n\n[gpu-radik]\ndtype = f16\nrows = 4\nk = 16\ncluster = %s\n' "$2" >"$tmp/$1.ini"
}
# gpu-radik's rows only: the family's reference rows (a copy) have one code path.
path_of() { python3 -c 'import csv, sys; print(" ".join(r["path"] for r in csv.DictReader(open(sys.argv[1])) if r["module"] == "gpu-radik"))' "$1/results.csv"; }
cfg on on
cfg auto auto
bad=0
"$pb" run "$tmp/auto.ini" --out "$tmp/auto" >"$tmp/auto.log" 2>&1 || { echo "FAIL: cluster = auto exits $?"; cat "$tmp/auto.log"; exit 1; }
"$pb" run "$tmp/on.ini" --out "$tmp/on" >"$tmp/on.log" 2>"$tmp/on.err"
rc=$?
if [ "$cc" -ge 90 ] && [ "$ptx" -ge 90 ]; then
    [ $rc -eq 0 ] || { echo "FAIL: cluster = on exits $rc on $cc with compute_$ptx code"; cat "$tmp/on.err"; bad=1; }
    [ "$(path_of "$tmp/on")" = cluster ] || { echo "FAIL: cluster = on: path '$(path_of "$tmp/on")'"; bad=1; }
    [ "$(path_of "$tmp/auto")" = cluster ] || { echo "FAIL: cluster = auto: path '$(path_of "$tmp/auto")'"; bad=1; }
else
    [ $rc -eq 2 ] || { echo "FAIL: cluster = on exits $rc, not 2, with compute_$ptx code on $cc"; bad=1; }
    [ "$(wc -l <"$tmp/on.err")" -eq 1 ] || { echo "FAIL: not one line:"; cat "$tmp/on.err"; bad=1; }
    grep -q "cluster = on needs \(code for \)\?compute capability 9.0" "$tmp/on.err" ||
        { echo "FAIL: no reason:"; cat "$tmp/on.err"; bad=1; }
    [ ! -e "$tmp/on/results.csv" ] || { echo "FAIL: a refused sweep wrote results"; bad=1; }
    [ "$(path_of "$tmp/auto")" = multi-pass ] || { echo "FAIL: cluster = auto: path '$(path_of "$tmp/auto")'"; bad=1; }
fi
[ $bad -eq 0 ] && echo "ok: device $cc, compute_$ptx code: auto took $(path_of "$tmp/auto"); on: exit $rc $(cat "$tmp/on.err")"
exit $bad
