# Throughput against problem size, one line per module instance (and item
# width, when the sweep has two). permbench sets: datafile (results.csv),
# labels and items (space-separated words), title, and the terminal/output.
set datafile separator ","
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "n (items)"
set ylabel "throughput (G items/s; median time: CUDA events on a GPU, the clock on a CPU)"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key outside right top noenhanced
set title title noenhanced
multi = words(items) > 1
plot for [L in labels] for [I in items] datafile \
     using (strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok" ? column("n") : NaN):(column("items_per_s") / 1e9) \
     with linespoints pt 7 ps 0.6 lw 1.5 \
     title (multi ? sprintf("%s (%s B)", L, I) : L)
