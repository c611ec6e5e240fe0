# Throughput against problem size with each instance drawn twice: at sizes
# that are powers of two (the bijective shuffle's best case, no padding) and
# at the others (2^w+1, its worst case: a domain twice the input).
# permbench sets: datafile, labels, items, title, and the terminal/output.
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xlabel "n (items)"
set ylabel "throughput (G items/s)"
pow2(n) = (int(n) & (int(n) - 1)) == 0
sel(L, I, want) = strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok" && pow2(column("n")) == want
eval mark_setup
plot for [i=1:words(labels)] for [I in items] datafile \
     using (sel(word(labels, i), I, 0) ? column("n") : NaN):(column("items_per_s") / 1e9) \
     with linespoints pt 7 ps 0.6 lw 1.5 lc i title sprintf("%s (n = 2^w+1)", word(labels, i)), \
     for [i=1:words(labels)] for [I in items] datafile \
     using (sel(word(labels, i), I, 1) ? column("n") : NaN):(column("items_per_s") / 1e9) \
     with linespoints pt 6 ps 0.6 lw 1.5 dt 2 lc i title sprintf("%s (n = 2^w)", word(labels, i)), \
     for [f = 1:words(marks)] datafile \
     using (marked(word(marks, f), labels, "label") ? column("n") : NaN):(column("items_per_s") / 1e9) \
     with points pt markpt(word(marks, f)) ps 1.6 lw 1 lc rgb "#000000" title marktitle(word(marks, f))
