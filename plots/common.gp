# Read before every figure's script (output/plot.c): ten colours that stay
# apart (linetypes 1-10) and a light shade of each (11-20: the same series at
# its second item width, or series 11-20), plain
# numbers on the tick labels ("1e-05", not "0.000010"), and the title with
# its second line (family, items, machine, commit) when permbench gives one.
set linetype 1 lc rgb "#1f77b4" pt 7
set linetype 2 lc rgb "#d62728" pt 5
set linetype 3 lc rgb "#2ca02c" pt 9
set linetype 4 lc rgb "#ff7f0e" pt 11
set linetype 5 lc rgb "#9467bd" pt 13
set linetype 6 lc rgb "#8c564b" pt 7
set linetype 7 lc rgb "#e377c2" pt 5
set linetype 8 lc rgb "#17becf" pt 9
set linetype 9 lc rgb "#bcbd22" pt 11
set linetype 10 lc rgb "#7f7f7f" pt 13
set linetype 11 lc rgb "#aec7e8" pt 6
set linetype 12 lc rgb "#ff9896" pt 6
set linetype 13 lc rgb "#98df8a" pt 8
set linetype 14 lc rgb "#ffbb78" pt 10
set linetype 15 lc rgb "#c5b0d5" pt 12
set linetype 16 lc rgb "#c49c94" pt 6
set linetype 17 lc rgb "#f7b6d2" pt 6
set linetype 18 lc rgb "#9edae5" pt 8
set linetype 19 lc rgb "#dbdb8d" pt 10
set linetype 20 lc rgb "#c7c7c7" pt 12
set linetype cycle 20
set format y "%g"
# a little room left and right, so the first and last sizes are not drawn on
# the frame
set offsets graph 0.02, graph 0.02, 0, 0
set datafile separator ","
set datafile missing NaN
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key outside right top noenhanced
if (!exists("subtitle")) subtitle = ""
if (!exists("title")) title = ""
fulltitle = subtitle eq "" ? title : title . "\n" . subtitle
set title fulltitle noenhanced
# A width in bytes as a reader names it.
itemname(I) = I eq "4" ? "4 B" : I eq "8" ? "8 B" : I . " B"
# A label's colour: its place among every label of the run (colour_labels,
# which permbench sets), so a module keeps its colour in every figure of a
# run, including those that leave some labels out (pct-copy, the copies).
if (!exists("colour_labels")) colour_labels = ""
colour_at(L, k) = k > words(colour_labels) ? 1 : (word(colour_labels, k) eq L ? k : colour_at(L, k + 1))
colour(L) = colour_at(L, 1)
# Rows a reader should not take at face value (results.csv's noisy,
# multimodal and busy columns, docs/measurement.md): each drawn again over its
# point as an open black marker, with one key entry a kind, and only the
# kinds the run has, so a figure of trusted rows shows no such entry. A
# run's figure script runs `eval mark_setup` (compare's and quality's data
# have no such columns), then adds mark_plot's elements to its plot with
# the x and y of its own points.
markkinds = "noisy multimodal busy"
marks = ""
# gnuplot 5.4 draws an empty iteration once all the same: with no kind to
# mark, marks is "none", an element of no point and no key entry.
mark_setup = 'do for [k in markkinds] { stats datafile using (strcol(k) eq "yes" && strcol("status") eq "ok" ? 1 : 0) name "MARK" nooutput; if (MARK_sum > 0) { marks = marks . " " . k } }; if (marks eq "") { marks = "none" }'
markpt(k) = k eq "noisy" ? 6 : k eq "multimodal" ? 8 : 4
marktitle(k) = k eq "none" ? "" : k eq "noisy" ? "noisy (95% CI of median wider than max_noise)" : \
               k eq "multimodal" ? "multimodal (samples in two clusters)" : "busy (measured on a busy machine)"
inwords(w, list) = sum [i = 1:words(list)] (word(list, i) eq w ? 1 : 0) > 0
# A row of kind k among the figure's labels (or series) and items.
marked(k, names, namecol) = k eq "none" ? 0 : strcol(k) eq "yes" && strcol("status") eq "ok" && \
                            inwords(strcol(namecol), names) && inwords(strcol("item_bytes"), items)
