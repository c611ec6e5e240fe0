#!/usr/bin/env bash
# Things a run allows but must not keep quiet about: more threads than the
# machine has logical CPUs gives one note line naming the instance.
#   run_notes.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cpus=$(getconf _NPROCESSORS_ONLN)
t=$((cpus * 4 + 1))
printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nplot = none\nceilings = none\n[cpu-gather]\nthreads = %d\n' "$t" >"$work/c.ini"
"$pb" run "$work/c.ini" --out "$work/o" --quiet >/dev/null 2>"$work/err" || { echo "FAIL: exit $?"; cat "$work/err"; exit 1; }
grep -q "^permbench: note: \[cpu-gather\] runs $t threads on $cpus logical CPUs (oversubscribed)$" "$work/err" ||
    { echo "FAIL: no oversubscription note"; cat "$work/err"; exit 1; }
echo "ok: $(grep oversubscribed "$work/err")"
