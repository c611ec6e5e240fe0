# Throughput against problem size, one colour per module instance and item
# width; bars from the slowest to the fastest sample (min-max of the
# recorded samples). permbench sets: datafile (results.csv), labels and
# items (space-separated words), title, subtitle, and the terminal/output.
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "n (items)"
set ylabel "throughput (G items/s): median, bars min-max\n(timer: CUDA events on a GPU, the monotonic clock on a CPU)"
multi = words(items) > 1
eval mark_setup
ok(L, I) = strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok"
g(c) = column("items_per_s") / 1e9
# one colour per instance, a light shade of it for the second item width
plot for [i = 1:words(labels)] for [j = 1:words(items)] datafile \
     using (ok(word(labels, i), word(items, j)) ? column("n") : NaN):(g(0)):(g(0) * column("median_ms") / column("max_ms")):(g(0) * column("median_ms") / column("min_ms")) \
     with yerrorlines lt (colour(word(labels, i)) + (j - 1) * 10) ps 0.6 lw 1.5 \
     title (multi ? sprintf("%s (%s)", word(labels, i), itemname(word(items, j))) : word(labels, i)), \
     for [f = 1:words(marks)] datafile \
     using (marked(word(marks, f), labels, "label") ? column("n") : NaN):(g(0)) \
     with points pt markpt(word(marks, f)) ps 1.6 lw 1 lc rgb "#000000" title marktitle(word(marks, f))
