# Sourced by the shell tests that stop a run and resume it (after
# support/tmpdir.sh): fail() shows every .err and .out of $work; rows() is
# bench/journal_rows.py (a journal's rows, rows kept, a finished run);
# stop_when FILE LINES SIGNAL PID waits until FILE has LINES lines (or
# the run ends, or 30 s), sends SIGNAL to PID and leaves its exit status in
# $rc.
fail() { echo "FAIL: $*"; for f in "$work"/*.err "$work"/*.out; do echo "--- $f"; cat "$f"; done; exit 1; }
rows() { python3 "$(dirname "${BASH_SOURCE[0]}")/../bench/journal_rows.py" "$@"; }
stop_when() {
    local file=$1 lines=$2 sig=$3 pid=$4
    for _ in $(seq 1 600); do
        for f in $file; do
            [ -f "$f" ] && [ "$(wc -l <"$f")" -ge "$lines" ] && break 2
        done
        sleep 0.05
    done
    kill -"$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=$?
}
