#!/usr/bin/env bash
# Modules' old names (docs/modules.md) still work: a config written with
# them runs, with --only and -D naming its sections by the old name or the
# new, and each old name used is noted once on stderr; `sample` takes one.
#   old_names.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; echo "--- stderr:"; cat err; exit 1; }

printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = none\nceilings = none\nreference = fisher-yates\n[fisher-yates]\n[pov-shuffle]\niterations = 3\n[gsl]\nmodule = gsl-shuffle\n' >old.ini
"$pb" run old.ini --out o --only fisher-yates,cpu-pov-shuffle -D cpu-pov-shuffle.iterations=2 >out 2>err ||
    fail "the run of a config with old names exited $?"
# The renames' notes: one for each old name the config and options use
# (the run's other notes and warnings are not counted).
grep 'is now' err >notes
want="permbench: note: 'fisher-yates' is now 'cpu-fisher-yates' (the old name still works; docs/modules.md)
permbench: note: 'pov-shuffle' is now 'cpu-pov-shuffle' (the old name still works; docs/modules.md)
permbench: note: 'gsl-shuffle' is now 'cpu-gsl-shuffle' (the old name still works; docs/modules.md)"
[ "$(sort notes)" = "$(printf '%s\n' "$want" | sort)" ] || fail "expected one note for each old name"
# The rows keep the config's labels, of the renamed modules; -D reached the
# old section through the new name; --only left [gsl] out.
python3 - o/results.json <<'PY' || fail "the rows are not as the config asked"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
got = sorted((r["label"], r["module"]) for r in rows)
assert got == [("fisher-yates", "cpu-fisher-yates"), ("pov-shuffle", "cpu-pov-shuffle")], got
insts = json.load(open(sys.argv[1]))["instances"]
pov = [i for i in insts if i["label"] == "pov-shuffle"][0]
assert int(pov["params"]["iterations"]) == 2, pov["params"]
PY
# The same config with its sections under the new names, run with old
# names on the command line.
sed 's/^\[fisher-yates\]/[cpu-fisher-yates]/; s/^\[pov-shuffle\]/[cpu-pov-shuffle]/; s/reference = fisher-yates/reference = cpu-fisher-yates/; s/module = gsl-shuffle/module = cpu-gsl-shuffle/' old.ini >new.ini
"$pb" run new.ini --out n --only pov-shuffle -D pov-shuffle.iterations=2 >out 2>err || fail "new.ini exited $?"
grep 'is now' err >notes
[ "$(cat notes)" = "permbench: note: 'pov-shuffle' is now 'cpu-pov-shuffle' (the old name still works; docs/modules.md)" ] ||
    fail "expected one note, for pov-shuffle"
# sample names a module by its old name too.
"$pb" sample fisher-yates --n 5 --count 2 --format text -o s.txt 2>err || fail "sample exited $?"
[ "$(wc -l <s.txt)" -eq 2 ] || fail "sample wrote $(wc -l <s.txt) rows, expected 2"
grep -q "'fisher-yates' is now 'cpu-fisher-yates'" err || fail "sample gave no note"
echo "ok: old names run, noted once each"
