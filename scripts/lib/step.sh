# Sourced by the GPU-node scripts (gpu-node-session.sh, gpu-own-data-check.sh):
#   step NAME LOG COMMAND...
# runs COMMAND with its output in LOG, appends "NAME exit RC SECONDS" to
# $summary (NAME padded to $step_width, 40 unless set) and to stdout, sets
# bad=1 on a failure, then calls the caller's step_after if it defines one
# (to pack what finished, so a session cut short keeps it). Returns RC.
step() {
    local name=$1 log=$2 t0 rc
    shift 2
    t0=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    printf "%-${step_width:-40}s exit %d  %4d s\n" "$name" "$rc" $(($(date +%s) - t0)) | tee -a "$summary"
    [ "$rc" -eq 0 ] || bad=1
    if declare -F step_after >/dev/null; then step_after; fi
    return $rc
}
