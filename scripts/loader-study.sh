#!/usr/bin/env bash
# How uniform are data loaders' shuffles (docs/loader-shuffles.md): runs
# the quality battery's bias metrics on the loader modules (cpu-buffer-shuffle
# with tf.data's and WebDataset's fill rules, cpu-shard-shuffle, cpu-mosaic-shuffle
# py1s and py1e) swept over the buffer, shard or block size as a fraction of
# n, with cpu-fisher-yates as the baseline, at each n and at each sample count
# of a doubling series; then extracts, per (module, n, samples, metric),
# where the metric stops telling the output from uniform, and draws the
# bias (statistic / its null expectation) against that fraction.
#
#   scripts/loader-study.sh [--permbench PATH] [--out DIR] [--ns "1000 10000"]
#                           [--samples "750 1500 3000"] [--no-plot]
#
# The metrics take what n allows: positional TVD and the next-item
# predictor keep an n x n table (n <= 4096), bigram and trigram TVD hash at
# most 2^24 windows (samples x n), so at n = 10^4 they run to 1677 samples
# and not beyond n = 65535; binned positions (32 x 32 bins of input and
# output positions, a chi-square) run at every n and sample count.
# Writes in the output folder: n<N>-s<S>/ (each quality run: config.ini,
# quality.csv, quality.json), breaking-point.csv (loader-study.awk's table),
# loader-bias-n<N>.png/.svg (one per n, at its largest sample count).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
pb="" out="" ns="1000 10000" samples="750 1500 3000" plot=1
die() { echo "loader-study: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --permbench) [ $# -ge 2 ] || die "--permbench needs a path"; pb=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --ns) [ $# -ge 2 ] || die "--ns needs a list"; ns=$2; shift 2 ;;
    --samples) [ $# -ge 2 ] || die "--samples needs a list"; samples=$2; shift 2 ;;
    --no-plot) plot=0; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
done
if [ -z "$pb" ]; then
    for p in "$root/build/permbench" "$root/build-cpu/permbench"; do
        [ -x "$p" ] && { pb=$p; break; }
    done
fi
[ -n "$pb" ] && [ -x "$pb" ] || die "no permbench (build it, or name it with --permbench)"
[ -n "$out" ] || out="$root/results/loader-study/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out" || die "cannot create $out"
start=$(date +%s)

# The sweep: n / 256 .. n doubling (at least 1, each value once).
# Then 3/4 and 7/8 of n: at large n and many samples the binned positions
# tell a buffer of half of n from uniform, so the breaking point lies there.
fractions() { awk -v n="$1" 'BEGIN { for (d = 256; d >= 1; d /= 2) { v = int(n / d + 0.5); if (v < 1) v = 1;
    if (!(v in s)) { s[v] = 1; printf "%s%d", sep, v; sep = ", " } }
    for (q = 6; q <= 7; q++) { v = int(n * q / 8); if (v >= 1 && !(v in s)) { s[v] = 1; printf ", %d", v } } }'; }

for n in $ns; do
    ngrams=""
    if [ "$n" -le 4096 ]; then ngrams="positional bigram trigram predictor"
    elif [ "$n" -le 65535 ]; then ngrams="bigram trigram"; fi
    list=$(fractions "$n")
    for s in $samples; do
        tests="position_bins"
        # the n-gram hash's bound: samples x (n - 2) windows <= 2^24
        cap=$(( (1 << 24) / n ))
        if [ -n "$ngrams" ] && [ "$s" -gt "$cap" ]; then
            echo "loader-study: n = $n: $s samples exceed the n-gram bound ($cap): binned positions only" >&2
        else tests="$ngrams $tests"; fi
        dir="$out/n$n-s$s"
        [ -f "$dir/quality.csv" ] && continue # resumable: a finished run is kept
        rm -rf "$dir"
        cfg="$out/.n$n-s$s.ini"
        {
            echo "[quality]"
            echo "title = Data-loader shuffles against uniform, n = $n ($s samples, alpha = 0.01)"
            echo "seed = 1"
            echo "alpha = 0.01"
            echo "gate = no"
            for t in $tests; do echo "$t = $n"; echo "${t}_samples = $s"; done
            echo "[tfdata]"; echo "module = cpu-buffer-shuffle"; echo "buffer = $list"
            echo "[webdataset]"; echo "module = cpu-buffer-shuffle"; echo "fill = webdataset"; echo "initial = 100"; echo "buffer = $list"
            echo "[shard]"; echo "module = cpu-shard-shuffle"; echo "buffer = $(( n / 16 ))"; echo "shard = $list"
            echo "[py1s]"; echo "module = cpu-mosaic-shuffle"; echo "algo = py1s"; echo "shard = $list"
            echo "[py1e]"; echo "module = cpu-mosaic-shuffle"; echo "algo = py1e"; echo "shard = $(( n / 64 > 0 ? n / 64 : 1 ))"; echo "block = $list"
            echo "[cpu-fisher-yates]"
        } >"$cfg"
        echo "loader-study: n = $n, $s samples ($(($(date +%s) - start)) s so far)" >&2
        "$pb" quality "$cfg" --out "$dir" --quiet || die "permbench quality failed at n = $n, $s samples (exit $?)"
        mv "$cfg" "$dir/config.ini"
    done
done

table="$out/breaking-point.csv"
files=$(ls "$out"/n*-s*/quality.csv 2>/dev/null) || die "no quality run in $out"
awk -F, -f "$here/loader-study.awk" $files >"$table.tmp" || { rm -f "$table.tmp"; die "cannot extract the breaking points"; }
mv "$table.tmp" "$table"

if [ "$plot" = 1 ] && command -v gnuplot >/dev/null; then
  for n0 in $ns; do
    s0=$(ls -d "$out/n$n0"-s* 2>/dev/null | sed 's/.*-s//' | sort -n | tail -1)
    csv="$out/n$n0-s$s0/quality.csv"
    [ -f "$csv" ] || die "no run at n = $n0 to draw"
    subtitle=""
    if command -v jq >/dev/null; then
        subtitle=$(jq -r '.provenance | "\(.host.cpu_model), \(.host.logical_cpus) CPUs, commit \(.git.commit[0:7])\(if .git.dirty == "yes" then " (dirty)" else "" end)"' "$out/n$n0-s$s0/quality.json" 2>/dev/null) || subtitle=""
    fi
    : >"$out/gnuplot.log"
    for term in "pngcairo size 1200,800 font 'sans,10'|png" "svg size 1200,800 dynamic font 'sans,10'|svg"; do
        ext=${term##*|}
        {
            printf "datafile = '%s'\nn = %d\nsamples = %d\nsubtitle = '%s'\n" "$csv" "$n0" "$s0" "${subtitle//\'/\'\'}"
            printf "set terminal %s\nset output '%s'\n" "${term%|*}" "$out/.loader-bias-n$n0.$ext.tmp"
            cat "$root/plots/common.gp" "$root/plots/loader-bias.gp"
            printf "\nunset multiplot\nset output\n"
        } | gnuplot 2>>"$out/gnuplot.log" && [ -s "$out/.loader-bias-n$n0.$ext.tmp" ] ||
            { rm -f "$out/.loader-bias-n$n0.$ext.tmp"; die "cannot draw $out/loader-bias-n$n0.$ext (see $out/gnuplot.log)"; }
        mv "$out/.loader-bias-n$n0.$ext.tmp" "$out/loader-bias-n$n0.$ext"
    done
    # A series with no failing (or no passing) point draws nothing: that
    # warning is expected; anything else stays in the log.
    grep -v -e 'Skipping data file with no valid points' -e '^ *$' "$out/gnuplot.log" >"$out/gnuplot.log.tmp"
    mv "$out/gnuplot.log.tmp" "$out/gnuplot.log"
    [ -s "$out/gnuplot.log" ] || rm -f "$out/gnuplot.log"
  done
fi

column -s, -t <"$table" 2>/dev/null || cat "$table"
echo "breaking points: $table ($(($(date +%s) - start)) s)"
