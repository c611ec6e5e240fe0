#!/usr/bin/env bash
# --dry-run's estimate against the real run on this machine: the sweep's
# measured time (results.json's summary.wall_s) within a factor of 2 of the
# total the dry run printed, for configs/smoke.ini (its u64 half) and a
# paper config trimmed to a few sizes and modules (configs/paper/
# cpu-table2.ini). The dry run's calibration is not part of the estimate
# and neither is writing the figures, so neither is counted.
#   dry_run_estimate.sh PERMBENCH SOURCE_DIR
set -u
pb=$1
src=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat "$work"/*.err 2>/dev/null; exit 1; }
# "1h02m", "3m05s", "12s" (output/progress.h) in seconds.
seconds() {
    python3 -c '
import re, sys
m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", sys.argv[1])
assert m and sys.argv[1], sys.argv[1]
h, mi, s = (int(x or 0) for x in m.groups())
print(3600 * h + 60 * mi + s)' "$1"
}
check() { # NAME CONFIG ARGS...
    name=$1 cfg=$2
    shift 2
    "$pb" run "$cfg" --dry-run -D sweep.plot=none "$@" >"$name.dry" 2>"$name.err" || fail "$name: dry run: exit $?"
    est=$(sed -n 's/^[0-9]* points: about \([0-9hms]*\) .*/\1/p' "$name.dry")
    [ -n "$est" ] || fail "$name: no total in the dry run"
    est=$(seconds "$est")
    "$pb" run "$cfg" --out "$name" --quiet -D sweep.plot=none "$@" >/dev/null 2>"$name.err" || fail "$name: run: exit $?"
    took=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["wall_s"])' "$name/results.json")
    echo "$name: estimated $est s, took $took s"
    python3 -c 'import sys; e, t = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (t / 2 <= max(e, 1) <= 2 * t))' \
        "$est" "$took" || fail "$name: the estimate ($est s) is not within 2x of the run ($took s)"
}
check smoke "$src/configs/smoke.ini" -D sweep.item=u64
check cpu-table2 "$src/configs/paper/cpu-table2.ini" -D "sweep.sizes=2^8+1 .. 2^17+1 *8" -D sweep.timeout=3 \
    --only cpu-fisher-yates,cpu-rao-sandelius
echo "ok: dry-run estimates within 2x"
