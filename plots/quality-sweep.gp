# A quality statistic against a swept module parameter (rounds, say), one
# line per swept group, a dashed line per group drawn at one setting (a
# reference module), and the acceptance thresholds as black lines: Figures
# 6-9 of Mitchell et al. (2024).
#
# Set by permbench before this script: datafile (quality.csv), title, n,
# test (the rows whose statistic is drawn), xlabel, ylabel, series (swept
# groups, space-separated), nh with h<i>, h<i>_title (horizontal lines of
# unswept groups), nt with t<i>, t<i>_title (thresholds), xspan (the swept
# values' span).
set datafile separator ','
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set logscale y
set format y '10^{%L}'
set grid xtics ytics mytics lc rgb '#dddddd'
set key inside right top noenhanced box opaque
set xtics nomirror
set mxtics
set autoscale xfix
set offsets graph 0.02, graph 0.02, 0, 0
# Each swept group's rows at this n and test, gathered into one datablock
# (an index per group), so its points join into one line.
set print $sweep
unset print
do for [i=1:words(series)] {
    set table $sweep append
    plot datafile using 6:10 with table \
        if (strcol(2) eq word(series, i) && strcol(7) eq sprintf('%d', n) && strcol(8) eq test)
    unset table
    set print $sweep append
    print ''
    print ''
    unset print
}
set datafile separator whitespace
# The swept parameter is an integer: whole ticks where gnuplot would put
# halves (a span of a few); xspan (permbench sets it) is -1 when unknown.
if (exists("xspan") && xspan >= 0 && xspan <= 10) { set xtics 1 }
plot for [i=1:words(series)] $sweep index (i - 1) using 1:2 \
        with linespoints pt 7 ps 0.8 lw 2 title word(series, i), \
     for [i=1:nh] value(sprintf('h%d', i)) with lines dt 2 lw 2 title value(sprintf('h%d_title', i)), \
     for [i=1:nt] value(sprintf('t%d', i)) with lines dt i+2 lw 2 lc rgb 'black' \
        title value(sprintf('t%d_title', i))
