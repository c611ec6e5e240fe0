# Throughput (kind "axis"), median time ("axis-time") or speedup over the
# sweep's reference ("axis-speedup") against the parameter a section varies (e.g. buckets), one
# line per section x item width x size (smooth unique joins each line's
# points, which the CSV interleaves with other sections' rows). permbench sets: datafile, series,
# items, sizes, axis, axis_values, title, kind, and the terminal/output.
set datafile separator ","
set datafile missing NaN
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
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top noenhanced
set title title noenhanced
multi_i = words(items) > 1
multi_n = words(sizes) > 1
itemname(I) = I eq "4" ? "keys" : I eq "8" ? "pairs" : I . " B"
sizename(N) = sprintf("n=2^%d", int(log(N + 0.0) / log(2.0) + 0.5))
# dashes tell sizes apart, open points pairs ("dt (" would start a dash pattern)
dt_of(N) = multi_n && N ne word(sizes, 1) ? 2 : 1
pt_of(I) = multi_i && I eq "8" ? 6 : 7
lt_of(S) = sum [i = 1:words(series)] (word(series, i) eq S ? i : 0)
yval(c) = speedup ? column("speedup_vs_ref") : timed ? column("median_ms") : column("items_per_s") / 1e9
xval(c) = allnum ? strcol("axis_value") + 0 : sum [i = 1:words(axis_values)] (word(axis_values, i) eq strcol("axis_value") ? i : 0)
if (!allnum) { set xtics (); do for [i = 1:words(axis_values)] { set xtics add (word(axis_values, i) i) }; set offsets 0.4, 0.4, 0, 0 }
plot for [S in series] for [I in items] for [N in sizes] datafile \
     using (strcol("series") eq S && strcol("item_bytes") eq I && strcol("n") eq N && strcol("status") eq "ok" && strcol("axis") ne "" ? xval(0) : NaN):(yval(0)) \
     smooth unique with linespoints lt lt_of(S) dt dt_of(N) pt pt_of(I) ps 0.7 lw 1.5 \
     title sprintf("%s%s%s", S, multi_i ? " " . itemname(I) : "", multi_n ? " " . sizename(N) : "") noenhanced
