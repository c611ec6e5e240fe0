# Effective bandwidth as a share of the contiguous copy measured on the same
# device in the same run: the ratio that holds across machines. The copy
# itself is the grey 100% line (drawn first, so no series hides under it);
# the axis turns logarithmic when the shares span more than a decade, so one
# outlier does not flatten the rest. permbench sets: datafile, labels (less
# the copies), items, title, subtitle, and the terminal/output.
set logscale x 2
set format x "2^{%L}"
set xlabel "n (items)"
set ylabel "effective bandwidth (% of the copy, same device, same run)"
ok(L, I) = strcol("label") eq L && strcol("item_bytes") eq I && strcol("status") eq "ok"
stats datafile using (strcol("status") eq "ok" && column("pct_of_copy") > 0 ? column("pct_of_copy") : NaN) nooutput
if (exists("STATS_max") && STATS_min > 0 && STATS_max / STATS_min > 10) { set logscale y 10 } else { set yrange [0:*] }
multi = words(items) > 1
eval mark_setup
plot 100 with lines dt 2 lw 1.5 lc rgb "#999999" title "copy (100%)", \
     for [i = 1:words(labels)] for [j = 1:words(items)] datafile \
     using (ok(word(labels, i), word(items, j)) ? column("n") : NaN):(column("pct_of_copy")) \
     with linespoints lt (colour(word(labels, i)) + (j - 1) * 10) ps 0.6 lw 1.5 \
     title (multi ? sprintf("%s (%s)", word(labels, i), itemname(word(items, j))) : word(labels, i)), \
     for [f = 1:words(marks)] datafile \
     using (marked(word(marks, f), labels, "label") ? column("n") : NaN):(column("pct_of_copy")) \
     with points pt markpt(word(marks, f)) ps 1.6 lw 1 lc rgb "#000000" title marktitle(word(marks, f))
