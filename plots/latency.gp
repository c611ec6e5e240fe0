# Time per call against problem size, two lines per module instance: the
# median of the timer (CUDA events around the launches on a GPU, the
# monotonic clock on a CPU: solid) and of the host's wall time of the same
# calls, launch to completion (dashed), which adds launch and synchronisation
# latency and matters at small sizes. On a CPU the two coincide.
# permbench sets: datafile, labels, items, title, and the terminal/output.
set datafile separator ","
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "n (items)"
set ylabel "time per call (ms, median)"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key outside right top noenhanced
set title title noenhanced
multi = words(items) > 1
plot for [L in labels] for [I in items] datafile \
     using (strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok" ? column("n") : NaN):(column("median_ms")) \
     with linespoints pt 7 ps 0.6 lw 1.5 \
     title (multi ? sprintf("%s (%s B) timer", L, I) : sprintf("%s timer", L)), \
     for [L in labels] for [I in items] datafile \
     using (strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok" ? column("n") : NaN):(column("wall_median_ms")) \
     with linespoints pt 6 ps 0.6 lw 1.5 dt 2 \
     title (multi ? sprintf("%s (%s B) wall", L, I) : sprintf("%s wall", L))
