# Throughput (kind "axis"), median time ("axis-time") or speedup over the
# (bars: min-max of the samples, for throughput and time)
# sweep's reference ("axis-speedup") against the parameter a section varies (e.g. buckets), one
# line per section x item width x size (smooth unique joins each line's
# points, which the CSV interleaves with other sections' rows). permbench sets: datafile, series,
# items, sizes, axis, axis_values, title, kind, and the terminal/output.
speedup = strstrt(kind, "speedup") > 0
timed = strstrt(kind, "time") > 0
# a value is a number when it is all digits (gnuplot refuses s + 0 otherwise)
allnum = words(axis_values) > 0
do for [i = 1:words(axis_values)] {
    w = word(axis_values, i)
    do for [c = 1:strlen(w)] { if (strstrt("0123456789", w[c:c]) == 0) { allnum = 0 } }
}
pow2 = allnum
if (allnum) { do for [i = 1:words(axis_values)] { v = int(word(axis_values, i)); if (v <= 0 || (v & (v - 1)) != 0) { pow2 = 0 } } }
if (pow2) { set logscale x 2 }
set xlabel axis noenhanced
if (speedup) { set ylabel "speedup over the reference (same run)" } else { if (timed) { set ylabel "median time (ms)"; set logscale y 10 } else { set ylabel "throughput (G items/s)"; set logscale y 10 } }
multi_i = words(items) > 1
eval mark_setup
multi_n = words(sizes) > 1
itemname(I) = I eq "4" ? "keys" : I eq "8" ? "pairs" : I . " B"
sizename(N) = sprintf("n=2^%d", int(log(N + 0.0) / log(2.0) + 0.5))
# dashes tell sizes apart, open points pairs ("dt (" would start a dash pattern)
dt_of(N) = multi_n && N ne word(sizes, 1) ? 2 : 1
pt_of(I) = multi_i && I eq "8" ? 6 : 7
# one colour per section, a lighter shade of it for its second item width
# (keys and pairs apart by colour as well as by open and filled points)
idx_of(I) = sum [i = 1:words(items)] (word(items, i) eq I ? i : 0)
# (a sum takes everything after it into its body: parenthesise it)
sidx_of(S) = sum [i = 1:words(series)] (word(series, i) eq S ? i : 0)
lt_of(S, I) = sidx_of(S) + (idx_of(I) - 1) * 10
yval(c) = speedup ? column("speedup_vs_ref") : timed ? column("median_ms") : column("items_per_s") / 1e9
xval(c) = allnum ? strcol("axis_value") + 0 : sum [i = 1:words(axis_values)] (word(axis_values, i) eq strcol("axis_value") ? i : 0)
# one size: the title says which
if (!multi_n && words(sizes) == 1 && strstrt(title, "n = ") == 0 && strstrt(title, "n=") == 0) { set title (title . "  (" . sizename(word(sizes, 1)) . ")" . (subtitle eq "" ? "" : "\n" . subtitle)) noenhanced }
if (!allnum) { set xtics (); do for [i = 1:words(axis_values)] { set xtics add (word(axis_values, i) i) }; set offsets 0.4, 0.4, 0, 0 }
# many lines: the key goes below the plot, in columns, so the plot keeps its width
if (words(series) * words(items) * words(sizes) > 16) { set key below center horizontal maxcols 4 }
sel(S, I, N) = strcol("series") eq S && strcol("item_bytes") eq I && strcol("n") eq N && strcol("status") eq "ok" && strcol("axis") ne ""
# the spread of the samples, slowest to fastest (none for speedups)
ylo(c) = timed ? column("min_ms") : yval(0) * column("median_ms") / column("max_ms")
yhi(c) = timed ? column("max_ms") : yval(0) * column("median_ms") / column("min_ms")
plot for [S in series] for [I in items] for [N in sizes] datafile \
     using (sel(S, I, N) ? xval(0) : NaN):(yval(0)) \
     smooth unique with linespoints lt lt_of(S, I) dt dt_of(N) pt pt_of(I) ps 0.7 lw 1.5 \
     title sprintf("%s%s%s", S, multi_i ? " " . itemname(I) : "", multi_n ? " " . sizename(N) : "") noenhanced, \
     for [S in series] for [I in items] for [N in sizes] datafile \
     using (!speedup && sel(S, I, N) ? xval(0) : NaN):(yval(0)):(ylo(0)):(yhi(0)) \
     with yerrorbars lt lt_of(S, I) pt 0 ps 0 lw 1 notitle, \
     for [f = 1:words(marks)] datafile \
     using (marked(word(marks, f), series, "series") && inwords(strcol("n"), sizes) && strcol("axis") ne "" ? xval(0) : NaN):(yval(0)) \
     with points pt markpt(word(marks, f)) ps 1.6 lw 1 lc rgb "#000000" title marktitle(word(marks, f))
