#!/usr/bin/env bash
# A disk that fills, then --resume (a file size limit stands in for a full
# disk while the journal grows: writes fail the same way, with EFBIG; a
# non-root test cannot mount a small file system, so results.json's full
# disk is PERMBENCH_TEST_ENOSPC, output/atomic_file.h's fault point):
#  - the journal cannot take a row: one line naming it, the reason and
#    `run --resume`, exit 2; the journal ends in a whole line; a resume
#    without the limit finishes the run, the journaled rows kept bit for bit;
#  - results.json cannot be written at the end (ENOSPC): one line, exit 2, no
#    results file; a resume measures nothing and writes the finished run with
#    every row as the journal held it.
#   run_resume_disk_full.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../support/stopping.sh"
# Ten small points of twelve samples: about a KiB of journal each.
printf '[sweep]\nsizes = 2^8, 2^9, 2^10, 2^11, 2^12, 2^13, 2^14, 2^15, 2^16, 2^17\nmin_samples = 12\nmax_samples = 12\nmin_time = 0\nflush_cache = no\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >"$work/c.ini"

# The journal outgrows 8 KiB half-way.
o=$work/a
(ulimit -f 8; exec "$pb" run "$work/c.ini" --out "$o" --quiet) >"$work/a.out" 2>"$work/a.err"
rc=$?
[ "$rc" = 2 ] || fail "journal over the limit: exit $rc, want 2"
# A loaded test host adds the busy-machine warning: not the line judged here.
sed -i '/^permbench: warning: the machine is busy/d' "$work/a.err"
[ "$(wc -l <"$work/a.err")" = 1 ] &&
    grep -q "^permbench: cannot write $o/journal.jsonl: File too large; finish with 'permbench run --resume $o'$" "$work/a.err" ||
    fail "journal over the limit: the line"
[ ! -e "$o/results.json" ] || fail "results.json written"
[ "$(tail -c 1 "$o/journal.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "the journal ends in a cut line"
kept=$(rows rows "$o/journal.jsonl" "$work/a.before") || fail "the journal does not read"
[ "$kept" -ge 1 ] && [ "$kept" -lt 10 ] || fail "$kept rows journaled, want 1 to 9"
"$pb" run --resume "$o" --quiet >"$work/a-resume.out" 2>"$work/a-resume.err" || fail "resume after the journal filled: exit $?"
rows complete "$o/results.json" 10 || fail "the resumed run is not complete"
rows kept "$work/a.before" "$o/results.json" || fail "a journaled row changed"

# results.json finds the disk full at the end.
o=$work/b
PERMBENCH_TEST_ENOSPC=results.json "$pb" run "$work/c.ini" --out "$o" --quiet >"$work/b.out" 2>"$work/b.err"
rc=$?
[ "$rc" = 2 ] || fail "results.json on a full disk: exit $rc, want 2"
sed -i '/^permbench: warning: the machine is busy/d' "$work/b.err"
[ "$(wc -l <"$work/b.err")" = 1 ] &&
    grep -q "^permbench: cannot write $o/results.json: No space left on device (the rows are in $o/journal.jsonl; finish with 'permbench run --resume $o')$" "$work/b.err" ||
    fail "results.json on a full disk: the line"
[ ! -e "$o/results.json" ] && [ ! -e "$o/results.csv" ] || fail "a results file was left"
[ -z "$(find "$o" -name '*.tmp*')" ] || fail "a temporary file was left"
[ "$(rows rows "$o/journal.jsonl" "$work/b.before")" = 10 ] || fail "the journal does not hold the ten rows"
"$pb" run --resume "$o" >"$work/b-resume.out" 2>"$work/b-resume.err" || fail "resume after results.json failed: exit $?"
rows complete "$o/results.json" 10 || fail "the resumed run is not complete"
rows kept "$work/b.before" "$o/results.json" || fail "a journaled row changed"
grep -q "^cpu-fisher-yates " "$work/b-resume.out" && fail "the resume measured a point again"
echo "ok: journal full after $kept rows, then results.json full; both resumed with every row kept"
