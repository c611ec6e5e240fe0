# Time per call against problem size, two lines per module instance in one
# colour: the median of the timer (CUDA events around the launches on a
# GPU, the monotonic clock on a CPU: solid, filled points) and of the host's
# wall time of the same calls, launch to completion (dashed, open points),
# which adds launch and synchronisation latency and matters at small sizes.
# On a CPU the two coincide. permbench sets: datafile, labels, items, title,
# subtitle, and the terminal/output.
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "n (items)"
set ylabel "time per call (ms, median)"
multi = words(items) > 1
nI = words(items)
eval mark_setup
ok(L, I) = strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok"
name(L, I) = multi ? sprintf("%s (%s)", L, itemname(I)) : L
plot for [i = 1:words(labels)] for [j = 1:nI] datafile \
     using (ok(word(labels, i), word(items, j)) ? column("n") : NaN):(column("median_ms")) \
     with linespoints lt (colour(word(labels, i)) + (j - 1) * 10) pt 7 ps 0.6 lw 1.5 \
     title name(word(labels, i), word(items, j)) . " timer", \
     for [i = 1:words(labels)] for [j = 1:nI] datafile \
     using (ok(word(labels, i), word(items, j)) ? column("n") : NaN):(column("wall_median_ms")) \
     with linespoints lt (colour(word(labels, i)) + (j - 1) * 10) pt 6 ps 0.6 lw 1.5 dt 2 \
     title name(word(labels, i), word(items, j)) . " wall", \
     for [f = 1:words(marks)] datafile \
     using (marked(word(marks, f), labels, "label") ? column("n") : NaN):(column("median_ms")) \
     with points pt markpt(word(marks, f)) ps 1.6 lw 1 lc rgb "#000000" title marktitle(word(marks, f))
