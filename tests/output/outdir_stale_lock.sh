#!/usr/bin/env bash
# A directory's lock left by a run that is gone is taken over with one note
# naming it; a lock held by a live run still refuses:
#  - the file names a pid no process has: "(no longer running)";
#  - a pid of another boot (its boot id is not this one's): "(of another boot)";
#  - a live pid that does not hold the lock (a reused pid): "(that pid is now
#    another process)";
#  - an empty file (a lock released in order): no note;
#  - a run holding the lock: the second run is refused (exit 2, one line,
#    its pid), and the first finishes.
#   outdir_stale_lock.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; for f in "$work"/*.err; do echo "--- $f"; cat "$f"; done; exit 1; }
printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nflush_cache = no\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >"$work/quick.ini"
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
check() { # check NAME LOCK-TEXT WHY ("" : no note)
    local d=$work/$1
    mkdir -p "$d"
    printf '%b' "$2" >"$d/.permbench.lock"
    "$pb" run "$work/quick.ini" --out "$d" --quiet >"$work/$1.out" 2>"$work/$1.err" || fail "$1: exit $?"
    [ -f "$d/results.json" ] || fail "$1: no results"
    if [ -z "$3" ]; then
        ! grep -q "note: taking over" "$work/$1.err" || fail "$1: a note for a lock released in order"
    else
        [ "$(grep -c "^permbench: note: taking over" "$work/$1.err")" = 1 ] &&
            grep -q "^permbench: note: taking over $d/.permbench.lock, left by pid [0-9]* ($3)$" "$work/$1.err" ||
            fail "$1: the note"
    fi
    [ ! -s "$d/.permbench.lock" ] || fail "$1: the lock was not released in order"
}
check gone "999999999\n$boot\n" "no longer running"
check reboot "1\n00000000-0000-0000-0000-000000000000\n" "of another boot"
check reused "$$\n$boot\n" "that pid is now another process"
check released "" ""

printf '[sweep]\nsizes = 2^14, 2^15, 2^16, 2^17\nmin_samples = 20\nmax_samples = 20\nmin_time = 0\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >"$work/slow.ini"
"$pb" run "$work/slow.ini" --out "$work/live" --quiet >"$work/live-a.out" 2>"$work/live-a.err" &
a=$!
for _ in $(seq 1 200); do [ -s "$work/live/.permbench.lock" ] && break; sleep 0.05; done
"$pb" run "$work/slow.ini" --out "$work/live" --quiet >"$work/live-b.out" 2>"$work/live-b.err"
rc=$?
wait $a || fail "the run holding the lock failed: $?"
[ "$rc" = 2 ] && [ "$(wc -l <"$work/live-b.err")" = 1 ] &&
    grep -q "^permbench: run: $work/live is in use by another permbench run (pid $a)$" "$work/live-b.err" ||
    fail "a live lock was not refused"
echo "ok: three stale locks taken over with their note, a released one silently, a live one refused"
