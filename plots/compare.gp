# permbench compare: each compared row's median time NEW / BASE
# (compare.csv), one column a row, on a logarithmic axis so that twice as
# slow and twice as fast lie as far from 1; the point coloured by the
# verdict (Mann-Whitney U and the threshold), dashed lines at the
# threshold. When the runs are on different devices, the ratio of each
# row's share of its ceiling (pct_of_copy) as an open diamond: near 1, the
# row moved with the copy. permbench sets: datafile, title, subtitle,
# threshold (percent), share (0 or 1), rows, same, faster, slower (the
# verdicts' counts), and the terminal/output.
set logscale y 10
set ylabel "median time, NEW / BASE (log scale; below 1 is faster)"
set xlabel "row (label, n)"
set xrange [-1:rows]
set offsets 0, 0, 0, 0
set grid noxtics
set xtics rotate by 90 right scale 0 noenhanced
if (rows > 60) { set xtics font ",7" }
if (rows > 240) { set xtics format "" }
up = 1 + threshold / 100.0
stats datafile using (column("ratio")) nooutput
lo = exists("STATS_min") ? STATS_min : 1
hi = exists("STATS_max") ? STATS_max : 1
if (share) {
    stats datafile using (column("share_ratio")) nooutput
    if (exists("STATS_min")) { lo = STATS_min < lo ? STATS_min : lo; hi = STATS_max > hi ? STATS_max : hi }
}
lo = lo < 1 / up ? lo : 1 / up
hi = hi > up ? hi : up
# Room above the highest point and below the lowest: a twentieth of the
# axis's decades (a fixed 8% was a hair on a wide axis, and a 321x point
# sat on the frame, half cut off).
pad = (hi / lo) ** 0.05
pad = pad > 1.08 ? pad : 1.08
set yrange [lo / pad : hi * pad]
verdict(V) = strcol("verdict") eq V ? column("ratio") : NaN
# Explicit ticks: a log axis from 0.8 to 1.5 would be labelled at 1 only;
# fine steps near 1 for a narrow range, coarse ones for a wide one.
if (hi / lo < 30) {
    set ytics ("0.1" 0.1, "0.2" 0.2, "0.3" 0.3, "0.5" 0.5, "0.67" 0.6667, "0.8" 0.8, "0.9" 0.9, \
               "0.95" 0.95, "1" 1, "1.05" 1.05, "1.1" 1.1, "1.25" 1.25, "1.5" 1.5, "2" 2, "3" 3, \
               "5" 5, "10" 10)
} else {
    set ytics ("0.001" 0.001, "0.01" 0.01, "0.03" 0.03, "0.1" 0.1, "0.2" 0.2, "0.5" 0.5, "1" 1, \
               "2" 2, "5" 5, "10" 10, "30" 30, "100" 100, "1000" 1000)
}
# Below the plot, never over it: inside, the box hid the tallest rows.
set key below horizontal box
# A series with no point makes gnuplot warn ("no valid points") into
# gnuplot.log: only the verdicts that occur, and the share ratios only when
# the devices differ (permbench sets same, faster, slower, unstable: the counts).
vdot(V, C) = sprintf(", datafile using (column(\"row\")):(verdict(\"%s\")) with points pt 7 ps 0.9 lc rgb \"%s\" title \"%s\"", V, C, V)
dots = (same ? vdot("SAME", "#7f7f7f") : "") . (faster ? vdot("FASTER", "#2ca02c") : "") . \
       (slower ? vdot("SLOWER", "#d62728") : "") . (unstable ? vdot("UNSTABLE", "#ff7f0e") : "")
shares = share ? ", datafile using (column(\"row\")):(column(\"share_ratio\")) with points pt 12 ps 1.1 lc rgb \"#1f77b4\" title \"share of the ceiling, NEW / BASE\"" : ""
plot 1 with lines lc rgb "#333333" lw 1 notitle, \
     up with lines dt 2 lc rgb "#999999" title sprintf("threshold (%g%%)", threshold), \
     1 / up with lines dt 2 lc rgb "#999999" notitle, \
     datafile using (column("row")):(1):(0):(column("ratio") - 1):xticlabels(strcol("name")) \
         with vectors nohead lw 3 lc rgb "#cccccc" notitle @dots @shares
