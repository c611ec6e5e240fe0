#!/usr/bin/env bash
# gpu-tile-check.sh OUT_DIR: the tile kernels' evidence on a GPU node, in one
# command, after scripts/gpu-node-build.sh has built build-gpu/ (run from the
# repository root):
#
#   scripts/gpu-node-build.sh && scripts/gpu-tile-check.sh OUT_DIR
#
# gpu-node-build.sh builds the bundle's source archive (unpacked into
# build-gpu-src/, the commit the results name), not this tree: the configs,
# the join and the figure script are read from the source the build was
# configured from (its CMakeCache.txt), so they match the binary, and from
# this tree only when the build has no such record.
#
#  1. the contract tests: the simulator's and the tile family's (CPU), the
#     GPU tile modules against the C reference at every operation, method,
#     m and pattern, and the paper's partition against its twin;
#  2. the timing sweeps: configs/tile/tile-{partition,sort,permute}.ini;
#  3. the simulator's predictions for the same tiles (permbench dmm tile);
#  4. Nsight Compute over one launch of every tile kernel
#     (configs/tile/tile-ncu.ini): the shared-memory bank conflict counters
#     (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st.sum), the
#     shared wavefronts and instructions, joined to the rows in order, each
#     kernel's name checked against its row;
#  5. compute-sanitizer --tool racecheck over the quick subset
#     (gpu_tile_small with PB_TILE_QUICK=1);
#  6. one table (tile-table.csv, tile-table.md: time, measured and predicted
#     conflicts per item, side by side) and a figure an operation
#     (tile-<op>.png), then a summary, printed last.
#
# OUT_DIR gets at most 8 files: summary.txt, tile-table.csv, tile-table.md,
# tile-partition.png, tile-sort.png, tile-permute.png and tile-bundle.tar.gz
# (every log, the runs' results directories, ncu's report and raw CSV, the
# simulator's CSV). Exit status: 0 when the tests, racecheck and every row
# passed, 1 otherwise (the summary says which).
#
# ncu runs with --clock-control none: the counters used here (conflicts,
# wavefronts, instructions) are event counts that do not depend on the
# clocks, the times in the table come from the timing sweep (CUDA events, no
# profiler), and locking the clocks would change the lent GPU's settings
# (and needs privileges some nodes withhold).
#
# Every stage runs under a timeout that keeps the whole within
# PB_TILE_DEADLINE seconds (default 345), each leaving time for the stages
# after it; a stage cut short says so in the summary. Expected on an H200
# node: about 4 minutes.
#
# Environment: PB_BUILD_DIR (default build-gpu), PB_TILE_QUICK=1 (a few rows
# of each operation, to check this script: configs/tile/tile-quick.ini),
# PB_TILE_DEADLINE, NCU (default: ncu on PATH, else /usr/local/cuda/bin/ncu),
# COMPUTE_SANITIZER likewise.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/gpu-tile-check.sh OUT_DIR}
build=${PB_BUILD_DIR:-$root/build-gpu}
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
[ -n "$src" ] && [ -d "$src/configs/tile" ] || src=$root
pb=$build/permbench
tests=$build/tests/pb_tests
deadline=${PB_TILE_DEADLINE:-345}
quick=${PB_TILE_QUICK:-0}
seed=19 # the seed of configs/tile/*.ini
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$out/tile-work
rm -rf "$work"
mkdir -p "$work"
SECONDS=0
stage() { echo "== $* (${SECONDS} s)" | tee -a "$work/stages.log"; }
# cap N RESERVE: seconds a stage may take: N, or less so that RESERVE
# seconds are left before the deadline for the stages after it.
cap() {
    local t=$((deadline - SECONDS - $2))
    [ "$t" -lt "$1" ] || t=$1
    [ "$t" -gt 0 ] || t=0
    echo "$t"
}

# The prefix gpu-node-build.sh unpacked (gnuplot), if any.
for e in /opt/permbench-deps/env.sh "${HOME:-/nonexistent}/.local/permbench-deps/env.sh"; do
    # shellcheck source=/dev/null
    if [ -f "$e" ]; then . "$e"; break; fi
done
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
gnuplot=${PERMBENCH_GNUPLOT:-$(command -v gnuplot || true)}

if [ ! -x "$pb" ] || [ ! -x "$tests" ]; then
    echo "gpu-tile-check: no $pb or $tests: run scripts/gpu-node-build.sh first" >&2
    exit 2
fi
"$pb" --version >"$work/info.txt" 2>&1
echo "source: $src" >>"$work/info.txt"
"$pb" info >>"$work/info.txt" 2>&1
nvidia-smi >"$work/nvidia-smi.txt" 2>&1
"$pb" list >"$work/list.txt" 2>&1
status=0

# 1. Contract tests.
stage "contract tests"
(cd "$build" && timeout "$(cap 240 200)" ctest -R '^(dmm_|tile_|gpu_tile_)' -j 4 \
    --output-on-failure) >"$work/ctest.log" 2>&1
ctest_rc=$?
ctest_line=$(grep -E 'tests passed|tests failed' "$work/ctest.log" | tail -1)
[ $ctest_rc -eq 0 ] || status=1

# 2. Timing sweeps.
if [ "$quick" = 1 ]; then
    sweeps="quick"
else
    sweeps="partition sort permute"
fi
sweep_line=""
for s in $sweeps; do
    stage "sweep $s"
    timeout "$(cap 120 150)" "$pb" run "$src/configs/tile/tile-$s.ini" --out "$work/run-$s" \
        --quiet >"$work/run-$s.log" 2>&1
    rc=$?
    sweep_line="$sweep_line $s: exit $rc;"
    [ $rc -eq 0 ] || status=1
done

# 3. The simulator's predictions for the same tiles (tiles 0..15 of each).
stage "simulator"
timeout "$(cap 60 130)" "$pb" dmm tile --csv --seed $seed --tiles 16 >"$work/sim.csv" \
    2>"$work/sim.log" || status=1

# 4. Nsight Compute.
metrics="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum"
ncu_line="not run"
only=()
if [ "$quick" = 1 ]; then
    only=(--only "partition-scatter-onebank,partition-split-onebank,sort-scatter-onebank,sort-split-onebank,permute-scatter-onebank,permute-split-onebank")
fi
if [ "$(cap 200 60)" -lt 30 ]; then
    ncu_line="skipped: too close to the deadline ($deadline s)"
elif ! command -v "$ncu" >/dev/null 2>&1 && [ ! -x "$ncu" ]; then
    ncu_line="ncu not found ($ncu)"
else
    stage "ncu"
    timeout "$(cap 200 60)" "$ncu" --clock-control none --target-processes all \
        --kernel-name-base function --kernel-name 'regex:^pb_tile_' --metrics "$metrics" \
        --export "$work/tile" --force-overwrite \
        "$pb" run "$src/configs/tile/tile-ncu.ini" "${only[@]}" --out "$work/run-ncu" --quiet \
        >"$work/ncu.log" 2>&1
    ncu_rc=$?
    if [ -f "$work/tile.ncu-rep" ]; then
        "$ncu" --import "$work/tile.ncu-rep" --csv --page raw --print-units base \
            --print-kernel-base demangled >"$work/ncu-raw.csv" 2>"$work/ncu-import.log" ||
            "$ncu" --import "$work/tile.ncu-rep" --csv --page raw >"$work/ncu-raw.csv" \
                2>>"$work/ncu-import.log"
        kernels=$(grep -cE '^"[0-9]+"' "$work/ncu-raw.csv")
        ncu_line="exit $ncu_rc, $kernels kernels profiled"
    else
        ncu_line="exit $ncu_rc, no report: $(grep -E '==ERROR==|ERR_' "$work/ncu.log" | head -3 | tr '\n' ' ')"
        # Which of the metrics this ncu knows, for fixing the names.
        { "$ncu" --query-metrics 2>&1 | grep -iE 'bank|shared' ; } >"$work/ncu-metrics.txt" 2>&1
        echo "ncu failed; its shared-memory metrics (ncu --query-metrics | grep -iE 'bank|shared'):"
        head -40 "$work/ncu-metrics.txt"
    fi
fi

# 5. Racecheck over the quick subset (last of the GPU stages: if time
# runs out, the measurements are in).
stage "racecheck"
race_line="not run"
if [ "$(cap 200 10)" -lt 20 ]; then
    race_line="skipped: too close to the deadline ($deadline s)"
    status=1
elif [ -x "$sanitizer" ] || command -v "$sanitizer" >/dev/null 2>&1; then
    PB_TILE_QUICK=1 timeout "$(cap 200 10)" "$sanitizer" --tool racecheck --racecheck-report all \
        --error-exitcode 3 "$tests" gpu_tile_small >"$work/racecheck.log" 2>&1
    race_rc=$?
    race_line="exit $race_rc; $(grep -E 'RACECHECK SUMMARY' "$work/racecheck.log" | tail -1)"
    [ $race_rc -eq 0 ] || status=1
else
    race_line="compute-sanitizer not found ($sanitizer)"
    status=1
fi

# 6. The table and the figures.
stage "table"
hdr() { [ -s "$1" ] || echo "$2" >"$1"; }
hdr "$work/sim.csv" "op,method,pattern,m"
[ -f "$work/run-ncu/results.csv" ] && cp "$work/run-ncu/results.csv" "$work/ncu-rows.csv"
hdr "$work/ncu-rows.csv" "label,series,axis,axis_value,n"
hdr "$work/ncu-raw.csv" "none"
runs=()
for s in $sweeps; do
    f=$work/run-$s/results.csv
    if [ ! -f "$f" ]; then
        f=$work/missing-$s.csv
        hdr "$f" "module"
    fi
    runs+=("$f")
done
join_args=("$work/sim.csv" "$work/ncu-rows.csv" "$work/ncu-raw.csv" "${runs[@]}")
awk -v mode=csv -f "$src/scripts/tile-join.awk" "${join_args[@]}" >"$out/tile-table.csv" \
    2>"$work/join.log"
{
    echo "# Tile kernels: time, measured and predicted bank conflicts"
    echo
    echo "From scripts/gpu-tile-check.sh; $(head -1 "$work/info.txt"); $(grep -m1 -E '^ +name' "$work/info.txt" | sed 's/^ *name *//')."
    awk -v mode=md -f "$src/scripts/tile-join.awk" "${join_args[@]}" 2>/dev/null
} >"$out/tile-table.md"
cat "$work/join.log" >&2
figures=0
if [ -n "$gnuplot" ]; then
    for op in partition sort permute; do
        grep -q "^$op," "$out/tile-table.csv" || continue
        "$gnuplot" -e "datafile='$out/tile-table.csv'; op='$op'; title='tile $op: bank conflicts (ncu filled, simulator open) and ns per item'; set terminal pngcairo size 1600,800 font 'sans,9'; set output '$out/tile-$op.png'" \
            "$src/plots/tile-conflicts.gp" >>"$work/gnuplot.log" 2>&1 && figures=$((figures + 1))
    done
fi

# The runs' failures.
bad_rows=$(awk -F, 'NR > 1 && $6 != "ok"' "$out/tile-table.csv" | wc -l)
[ "$bad_rows" -eq 0 ] || status=1

# Pack everything else.
stage "pack"
tar -czf "$out/tile-bundle.tar.gz" -C "$out" tile-work 2>/dev/null

# Summary, printed last.
{
    echo "gpu-tile-check: $(head -1 "$work/info.txt"), $(grep -m1 -E '^ +name' "$work/info.txt" | sed 's/^ *//'), ${SECONDS} s"
    echo "contract tests : $ctest_line (exit $ctest_rc; $(grep -c '(Skipped)' "$work/ctest.log") skipped)"
    echo "racecheck      : $race_line"
    echo "sweeps         :$sweep_line rows not ok: $bad_rows"
    echo "ncu            : $ncu_line; join: $( [ -s "$work/join.log" ] && head -1 "$work/join.log" || echo ok)"
    echo "stages         : $(tr '\n' ' ' <"$work/stages.log")"
    echo "figures        : $figures"
    echo
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { key = $c["op"] "|" $c["pattern"] "|" $c["m"]; t[key, $c["method"]] = $c["ns_per_item"];
          k[key, $c["method"]] = $c["ncu_conflicts_per_item"]; s[key, $c["method"]] = $c["sim_conflicts_per_item"];
          if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
        END {
            split("scatter pad split paper cub", M, " ")
            printf "%-9s %-8s %4s", "op", "pattern", "m"
            for (j = 1; j <= 5; j++) printf " | %-25s", M[j] " ns ncu sim"
            printf "\n"
            for (i = 1; i <= n; i++) {
                split(order[i], f, "|")
                if (f[3] != 64 && f[3] != 256) continue
                printf "%-9s %-8s %4s", f[1], f[2], f[3]
                for (j = 1; j <= 5; j++) {
                    if (!((order[i], M[j]) in t)) { printf " | %-25s", "-"; continue }
                    printf " | %7s %8s %8s", t[order[i], M[j]], k[order[i], M[j]] == "" ? "n/a" : k[order[i], M[j]], s[order[i], M[j]] == "" ? "n/a" : s[order[i], M[j]]
                }
                printf "\n"
            }
        }' "$out/tile-table.csv"
    echo
    echo "partition points (split vs scatter, same pattern and m):"
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["op"] == "partition" { t[$c["method"], $c["pattern"], $c["m"]] = $c["ns_per_item"];
                                  k[$c["method"], $c["pattern"], $c["m"]] = $c["ncu_conflicts_per_item"] }
        END {
            split("onebank strided uniform skewed", P, " "); split("32 64 128 256", Mv, " ")
            for (p = 1; p <= 4; p++) for (j = 1; j <= 4; j++) {
                a = t["scatter", P[p], Mv[j]]; b = t["split", P[p], Mv[j]]
                if (a == "" || b == "" || b == 0) continue
                r = a / b
                need = (P[p] == "onebank" || P[p] == "strided") && Mv[j] >= 64
                printf "  %-8s m=%-3s speedup %.2f%s; split conflicts/item (ncu) %s\n", P[p], Mv[j], r,
                       need ? (r >= 1.2 ? " (>= 1.2: met)" : " (< 1.2: NOT met)") : " (reported)",
                       k["split", P[p], Mv[j]] == "" ? "n/a" : k["split", P[p], Mv[j]]
            }
        }' "$out/tile-table.csv"
} >"$out/summary.txt"
rm -rf "$work"
cat "$out/summary.txt"
exit $status
