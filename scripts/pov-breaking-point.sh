#!/usr/bin/env bash
# POV-shuffle's breaking point against deck size (docs/pov.md): runs the
# quality battery on POV swept over iterations and on cpu-fisher-yates
# (configs/paper/pov-breaking-point.ini), then extracts, per deck size and
# test, the fewest iterations at which the test passes, and draws them.
#
#   scripts/pov-breaking-point.sh [--permbench PATH] [--config INI] [--out DIR]
#                                 [-D SECTION.KEY=VALUE]... [--no-plot]
#   scripts/pov-breaking-point.sh --from DIR [--out DIR] [--no-plot]
#
# --from DIR takes an existing quality run (DIR/quality.csv, and
# DIR/quality.json for the figures' subtitle) instead of running one; its
# outputs go to DIR unless --out names another folder. -D is passed to
# permbench quality (e.g. -D quality.seed=2). Writes, in the output folder:
#   breaking-point.csv               scripts/pov-breaking-point.awk's table
#   pov-breaking-point.png/.svg      first_pass against n, one series a test
#   pov-breaking-point-baseline.png/.svg  reach_baseline (the README's own
#                                    definition) against n
#   gnuplot.log                      gnuplot's warnings, if any
# and prints the table and the wall time. Without gnuplot (or with
# --no-plot) only the table. Exit 0, or 2 on an error.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
pb="" config="$root/configs/paper/pov-breaking-point.ini" out="" from="" plot=1
defines=()
die() { echo "pov-breaking-point: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --permbench) [ $# -ge 2 ] || die "--permbench needs a path"; pb=$2; shift 2 ;;
    --config) [ $# -ge 2 ] || die "--config needs a file"; config=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --from) [ $# -ge 2 ] || die "--from needs a folder"; from=$2; shift 2 ;;
    -D) [ $# -ge 2 ] || die "-D needs SECTION.KEY=VALUE"; defines+=(-D "$2"); shift 2 ;;
    --no-plot) plot=0; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
done

start=$(date +%s)
if [ -n "$from" ]; then
    [ -f "$from/quality.csv" ] || die "$from/quality.csv does not exist"
    [ ${#defines[@]} -eq 0 ] || die "-D has no effect with --from"
    [ -n "$out" ] || out=$from
    mkdir -p "$out" || die "cannot create $out"
    csv="$from/quality.csv" json="$from/quality.json"
else
    if [ -z "$pb" ]; then
        for p in "$root/build/permbench" "$root/build-cpu/permbench"; do
            [ -x "$p" ] && { pb=$p; break; }
        done
    fi
    [ -n "$pb" ] && [ -x "$pb" ] || die "no permbench (build it, or name it with --permbench)"
    [ -f "$config" ] || die "$config does not exist"
    [ -n "$out" ] || out="$root/results/pov-breaking-point/$(date -u +%Y%m%dT%H%M%SZ)"
    # permbench quality creates the folder and refuses one that holds results.
    "$pb" quality "$config" --out "$out" --quiet "${defines[@]}" || die "permbench quality failed (exit $?)"
    csv="$out/quality.csv" json="$out/quality.json"
fi

table="$out/breaking-point.csv"
awk -F, -f "$here/pov-breaking-point.awk" "$csv" >"$table.tmp" || { rm -f "$table.tmp"; die "cannot extract the breaking points of $csv"; }
mv "$table.tmp" "$table"

if [ "$plot" = 1 ] && command -v gnuplot >/dev/null; then
    tests=$(awk -F, 'NR > 1 && !seen[$2]++ { printf "%s%s", sep, $2; sep = " " }' "$table")
    maxit=$(awk -F, 'NR > 1 { split($3, r, "-"); if (r[2] + 0 > m) m = r[2] + 0 } END { print m + 0 }' "$table")
    subtitle=""
    if [ -f "$json" ] && command -v jq >/dev/null; then
        subtitle=$(jq -r '.provenance | "\(.host.cpu_model), \(.host.logical_cpus) CPUs, commit \(.git.commit[0:7])\(if .git.dirty == "yes" then " (dirty)" else "" end)"' "$json" 2>/dev/null) || subtitle=""
        t=$(jq -r '.provenance.config.text // ""' "$json" 2>/dev/null | sed -n 's/^title *= *//p' | head -1)
    fi
    title=${t:-POV-shuffle breaking point against deck size}
    for kind in first_pass reach_baseline; do
        c=$(awk -F, -v k="$kind" -v tests="$tests" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) f = i; next }
            $f == "NaN" { nan[$2] = 1 }
            END { m = split(tests, t, " "); for (i = 1; i <= m; i++) if (t[i] in nan) { printf "%s%d", sep, i; sep = " " } }' "$table")
        ytop=$(awk -F, -v k="$kind" -v m="$maxit" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) f = i; next }
            { y = $f == "NaN" ? m + 1 : $f + 0; if (y > top) top = y } END { print top + 0 }' "$table")
        case $kind in
        first_pass) stem=pov-breaking-point ylabel="fewest iterations at which the test passes" ;;
        reach_baseline) stem=pov-breaking-point-baseline ylabel="fewest iterations at which the statistic is at most cpu-fisher-yates's" ;;
        esac
        for term in "pngcairo size 1100,650 font 'sans,10'|png" "svg size 1100,650 dynamic font 'sans,10'|svg"; do
            ext=${term##*|}
            echo "# $out/$stem.$ext" >>"$out/gnuplot.log"
            {
                printf "datafile = '%s'\ntests = '%s'\nycol = '%s'\nylabel = \"%s\"\nmaxit = %d\nytop = %d\ncensored = '%s'\n" \
                    "$table" "$tests" "$kind" "$ylabel" "$maxit" "$ytop" "$c"
                printf "title = '%s'\nsubtitle = '%s'\n" "${title//\'/\'\'}" "${subtitle//\'/\'\'}"
                printf "set terminal %s\nset output '%s'\n" "${term%|*}" "$out/.$stem.$ext.tmp"
                cat "$root/plots/common.gp" "$root/plots/pov-breaking-point.gp"
                printf "\nset output\n"
            } | gnuplot 2>>"$out/gnuplot.log" && [ -s "$out/.$stem.$ext.tmp" ] ||
                { rm -f "$out/.$stem.$ext.tmp"; die "cannot draw $out/$stem.$ext (see $out/gnuplot.log)"; }
            mv "$out/.$stem.$ext.tmp" "$out/$stem.$ext"
        done
    done
    # Only the figure headers: no warnings, no log.
    grep -qv '^#' "$out/gnuplot.log" || rm -f "$out/gnuplot.log"
fi

column -s, -t <"$table" 2>/dev/null || cat "$table"
echo "breaking points: $table ($(($(date +%s) - start)) s)"
