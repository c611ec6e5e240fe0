#!/usr/bin/env bash
# scripts/check-layers.sh must fail on each kind of violation, in a small
# synthetic tree, and pass on a clean one (the real tree is checked by the
# `layers` test).
set -u
checker=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
mk() { mkdir -p "$(dirname "$work/$1")"; printf '%b' "$2" >"$work/$1"; }
expect() { # expect RC WANT: run the checker, compare status and message
    out=$("$checker" "$work" 2>&1)
    rc=$?
    [ "$rc" -eq "$1" ] || { echo "FAIL: status $rc, expected $1: $out"; exit 1; }
    [ -z "$2" ] || echo "$out" | grep -qF -- "$2" || { echo "FAIL: no '$2' in: $out"; exit 1; }
}
mk core/a.h '#include "core/b.h"\n'
mk core/b.h '\n'
mk bench/r.c '#include "core/a.h"\n'
expect 0 "no cycle"
mk core/b.h '#include "bench/r.h"\n'
mk bench/r.h '\n'
expect 1 "core/ (a lower layer) must not use bench/"
mk core/b.h '\n'
mk config/x.c '#include "stats/y.h"\n'
mk stats/y.h '\n'
expect 1 "siblings of one layer"
rm -f "$work/config/x.c"
mk quality/q.c '#include "bench/r.h"\n'
expect 1 "quality/ and bench/ are siblings of one layer"
rm -f "$work/quality/q.c"
mk output/o.c '#include "compare/c.h"\n'
mk compare/c.h '\n'
expect 1 "output/ (a lower layer) must not use compare/"
rm -f "$work/output/o.c"
mk families/one/p.c '#include "families/two/q.h"\n'
mk families/two/q.h '\n'
expect 1 "one family's folder must not use another's"
rm -f "$work/families/one/p.c"
mk core/c.h '#include "core/d.h"\n'
mk core/d.c '#include "core/c.h"\n'
expect 1 "include cycle"
rm -f "$work/core/d.c"
mk app/m.c '#include "core/missing.h"\n'
expect 1 "does not exist"
echo "ok: every violation caught"
