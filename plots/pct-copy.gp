# Effective bandwidth as a share of the contiguous copy measured on the same
# device in the same run: the ratio that holds across machines. permbench
# sets: datafile, labels, items, title, and the terminal/output.
set datafile separator ","
set logscale x 2
set format x "2^{%L}"
set xlabel "n (items)"
set ylabel "effective bandwidth (% of copy)"
set yrange [0:*]
set grid xtics ytics lc rgb "#dddddd"
set key outside right top noenhanced
set title title noenhanced
multi = words(items) > 1
plot for [L in labels] for [I in items] datafile \
     using (strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok" ? column("n") : NaN):(column("pct_of_copy")) \
     with linespoints pt 7 ps 0.6 lw 1.5 \
     title (multi ? sprintf("%s (%s B)", L, I) : L), \
     100 with lines dt 2 lc rgb "#888888" title "copy"
