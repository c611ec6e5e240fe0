# Per shape (rows x n x dtype, on x in the order rows, n, bytes read), the
# median time (top) and the share of one read at the copy's rate (bottom) of
# every module and axis value (one line each): the bytes the row reads over
# its time, over the copy's GB/s (a copy's GB/s counts its bytes twice,
# read and written, so one read of the input at that rate takes half the
# copy's time; output/plot_share.h). The grey line is 100%: the input read
# in half the time the copy of it takes. permbench writes the points to
# share-one-read.csv beside results.csv (a block a line) and sets: datafile
# (results.csv, beside it), series (the lines), axis_values (the shapes),
# title, subtitle, and the terminal/output.
sharefile = datafile[1:strlen(datafile) - strlen("results.csv")] . "share-one-read.csv"
nshapes = words(axis_values)
nlines = words(series)
unset title
set multiplot layout 2, 1 title fulltitle noenhanced
set xrange [0.5:nshapes + 0.5]
set xtics () rotate by 60 right font ",7" noenhanced
do for [i = 1:nshapes] { set xtics add (word(axis_values, i) i) }
# both panels the same width, so a shape sits at one x in each
set lmargin at screen 0.08
set rmargin at screen 0.76
set offsets 0, 0, graph 0.05, 0
set key outside right top noenhanced
set logscale y 10
set ylabel "median time (ms)"
plot for [i = 1:nlines] sharefile index (i - 1) using 1:2 with linespoints lt i ps 0.6 lw 1.2 \
     title word(series, i)
unset logscale y
set yrange [0:*]
set ylabel "share of one read (%)"
plot 100 with lines dt 2 lw 1.5 lc rgb "#999999" title "one read at the copy's rate", \
     for [i = 1:nlines] sharefile index (i - 1) using 1:3 with linespoints lt i ps 0.6 lw 1.2 \
     title word(series, i)
unset multiplot
