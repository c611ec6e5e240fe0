# Sourced by the one-command GPU checks (l2-shuffle-gpu-check.sh,
# topk-batch-gpu-check.sh):
#   gpu_check_dirs NAME BUILD_DIR OUT_DIR
# sets build (BUILD_DIR made absolute; it must hold permbench and
# tests/pb_tests), out (OUT_DIR, made if missing, absolute) and sanitizer
# (COMPUTE_SANITIZER, else compute-sanitizer on PATH, else the toolkit's).
# A missing build, or an OUT_DIR that cannot be made, gets one line on
# stderr that begins with NAME, and exit 2.
gpu_check_dirs() {
    local name=$1
    build=$(cd "$2" 2>/dev/null && pwd) || { echo "$name: no build directory $2" >&2; exit 2; }
    if [ ! -x "$build/permbench" ] || [ ! -x "$build/tests/pb_tests" ]; then
        echo "$name: no permbench or tests/pb_tests in $build: build it first" >&2
        exit 2
    fi
    mkdir -p "$3" 2>/dev/null || { echo "$name: cannot make the output directory $3" >&2; exit 2; }
    out=$(cd "$3" && pwd)
    sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
}
