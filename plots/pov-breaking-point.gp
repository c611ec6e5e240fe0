# POV-shuffle's breaking point against deck size (the README's third
# figure): for each test, the fewest iterations at which it is reached, one
# series per test. Read after plots/common.gp, as permbench's figures are.
#
# Set before this script (scripts/pov-breaking-point.sh): datafile (the
# breaking-point CSV of scripts/pov-breaking-point.awk), tests (the tests to
# draw, space-separated), column (first_pass, stable_pass or
# reach_baseline), ylabel, maxit (the most iterations tested), ytop (the
# y axis's last tick: the largest point, maxit + 1 with one not reached), censored
# (the indices in tests of those with a point not reached, space-separated),
# title, subtitle, and the terminal/output.
#
# Points not reached within maxit are drawn as open triangles at maxit + 1.
# Series that coincide (every test is at 1 where POV is one exact
# Fisher-Yates) are offset vertically by a few hundredths of an iteration
# each, so all stay visible; the ticks are whole iterations.
set logscale x 2
set format x "2^{%L}"
set xlabel "deck size n (items)"
set ylabel ylabel noenhanced
set yrange [0.5:ytop + 0.5]
set ytics 1
set mytics 1
set key outside right top noenhanced
# "NaN" marks a point not reached: read it, do not skip its row.
unset datafile missing
k = words(tests)
dy(i) = (i - (k + 1) / 2.0) * 0.05
sel(T) = strcol("test") eq T
# the j-th censored test's index (gnuplot parses an empty loop's body once:
# it must not convert an empty word)
ci(j) = j <= words(censored) ? word(censored, j) + 0 : 1
plot for [i = 1:k] datafile \
        using (sel(word(tests, i)) && strcol(ycol) ne "NaN" ? column("n") : NaN):(column(ycol) + dy(i)) \
        smooth unique with linespoints lt i pt 7 ps 0.9 lw 1.5 title word(tests, i), \
     for [j = 1:words(censored)] datafile \
        using (sel(word(tests, ci(j))) && strcol(ycol) eq "NaN" ? column("n") : NaN):(maxit + 1 + dy(ci(j))) \
        with points lt ci(j) pt 8 ps 1.3 notitle, \
     NaN with points lc rgb "black" pt 8 ps 1.3 title (words(censored) > 0 ? sprintf("not reached by %d", maxit) : "")
