#!/usr/bin/env bash
# A file system that takes no more (a file size limit stands in for a full
# disk: the writes fail the same way, with EFBIG instead of ENOSPC):
#  - figures: `plot` exits 2 with one line naming the figure and the reason,
#    and leaves no empty, cut or temporary figure behind;
#  - results: `run` exits 2 with one line naming the file (the journal, the
#    first to outgrow the limit), the OS's reason and `run --resume`, leaves
#    no results file or temporary file, and keeps every finished row in
#    results.partial.csv and the journal, which ends in a whole line.
#    (run_resume_disk_full.sh resumes such runs, and fails results.json.)
#   disk_full.sh PERMBENCH SOURCE_DIR
set -u
pb=$1 src=$2
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$work/err"; ls -la "$work"/*/; exit 1; }
if ! command -v gnuplot >/dev/null && [ -z "${PERMBENCH_GNUPLOT:-}" ]; then echo "skipped: no gnuplot"; exit 77; fi

# Figures: a finished run's directory, redrawn under a 24 KiB limit (the PNGs
# are larger).
d=$work/fig
mkdir -p "$d"
printf '[sweep]\nsizes = 2^8, 2^10, 2^12\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = throughput, pct-copy\n[cpu-fisher-yates]\n' >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$d" --quiet >/dev/null 2>&1 || { echo "FAIL: setup run"; exit 1; }
rm -f "$d"/*.png "$d"/*.svg
(ulimit -f 24; exec "$pb" plot "$d") >/dev/null 2>"$work/err"
rc=$?
[ "$rc" = 2 ] || fail "plot under a size limit: exit $rc, want 2"
[ "$(wc -l <"$work/err")" = 1 ] || fail "plot: not one line on stderr"
grep -q "^permbench: plot: cannot draw $d/throughput.png: .*\(File size limit exceeded\|File too large\|No space left\)" "$work/err" ||
    fail "plot: the line does not name the figure and the reason"
[ -z "$(find "$d" -name '*.png' -o -name '*.svg' -o -name '*.tmp')" ] || fail "a figure or temporary file was left"

# Results: the journal (every row, raw samples, the provenance at its head)
# is the first file to outgrow an 8 KiB limit, before the run ends.
o=$work/res
(ulimit -f 8; exec "$pb" run "$work/c.ini" --out "$o" --quiet) >/dev/null 2>"$work/err.all"
rc=$?
# Less the warning a busy machine (a loaded test host) adds.
grep -v '^permbench: warning: the machine is busy' "$work/err.all" >"$work/err"
[ "$rc" = 2 ] || fail "run under a size limit: exit $rc, want 2"
[ "$(wc -l <"$work/err")" = 1 ] || fail "run: not one line on stderr"
grep -q "^permbench: cannot write $o/journal.jsonl: File too large; finish with 'permbench run --resume $o'$" "$work/err" ||
    fail "run: the line does not name the journal, the reason and the way on"
[ ! -e "$o/results.json" ] && [ ! -e "$o/results.csv" ] || fail "a results file was left"
[ -z "$(find "$o" -name '*.tmp*')" ] || fail "a temporary file was left"
[ "$(tail -c 1 "$o/journal.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "the journal ends in a cut line"
rows=$(($(wc -l <"$o/results.partial.csv") - 1))
[ "$rows" -ge 1 ] && [ "$rows" = "$(($(wc -l <"$o/journal.jsonl") - 1))" ] ||
    fail "the partial CSV and the journal do not hold the same rows"
echo "ok: $(cat "$work/err")"
