#!/usr/bin/env bash
# The fuzz campaign (docs/fuzzing.md): each harness for RUNS executions or
# SECONDS, whichever comes first, under ASan+UBSan+LSan, one at a time at
# the lowest priority; prints a row of the campaign table for each.
#
#   tests/fuzz/campaign.sh BUILD_DIR [HARNESS...]
#
# BUILD_DIR is a sanitizer build with the harnesses (-DPB_SANITIZE=ON with
# clang). Each harness starts from its committed corpus; what it adds, its
# log and any crashing input go to BUILD_DIR/fuzz-campaign/. To keep what
# the campaign found, merge it into the committed corpus:
#   fuzz_NAME -merge=1 tests/fuzz/corpus/NAME BUILD_DIR/fuzz-campaign/NAME
#
#   PB_FUZZ_RUNS      executions per harness (default 10000000)
#   PB_FUZZ_SECONDS   time per harness (default 1800)
set -Eeuo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: campaign.sh BUILD_DIR [HARNESS...]}" && pwd)
shift
runs=${PB_FUZZ_RUNS:-10000000}
secs=${PB_FUZZ_SECONDS:-1800}
out=$build/fuzz-campaign
mkdir -p "$out"
# The harnesses and their dictionaries, as tests/fuzz/CMakeLists.txt lists them.
mapfile -t lines < <(sed -n 's/^pb_fuzz_harness(\([a-z_]*\)\( DICT \([a-z_]*\)\)\?).*/\1 \3/p' \
    "$root/tests/fuzz/CMakeLists.txt")
echo "| harness | executions | wall time | exec/s | cov | ft | corpus | result |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for line in "${lines[@]}"; do
    read -r name dict <<<"$line"
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    bin=$build/tests/fuzz/fuzz_$name
    [ -x "$bin" ] || { echo "campaign.sh: $bin not built" >&2; exit 2; }
    mkdir -p "$out/$name"
    flags=(-runs="$runs" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048
        -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$out/$name-")
    [ -n "$dict" ] && flags+=(-dict="$root/tests/fuzz/$dict.dict")
    start=$(date +%s)
    rc=0
    nice -n 19 "$bin" "${flags[@]}" "$out/$name" "$root/tests/fuzz/corpus/$name" \
        >"$out/$name.log" 2>&1 || rc=$?
    wall=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -n1)
    last=$(grep -a -E '^#[0-9]+.*cov: ' "$out/$name.log" | tail -n1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
    if [ "$rc" -eq 0 ]; then result="no crash, hang or leak"; else
        result="FAILED (exit $rc): $(grep -a -m1 -E 'ERROR|fuzz check failed|runtime error' "$out/$name.log" | cut -c1-80)"
    fi
    eps=$(( ${execs:-0} / (wall > 0 ? wall : 1) ))
    printf '| %s | %s | %d min %02d s | %s | %s | %s | %s | %s |\n' "$name" "${execs:-?}" \
        $((wall / 60)) $((wall % 60)) "$eps" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
