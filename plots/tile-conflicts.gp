# Bank conflicts and time per item of the tile kernels, side by side: one
# column a label pattern; top, shared-memory bank conflicts per item
# measured by Nsight Compute (filled points) and predicted by the simulator
# (open points); bottom, the timing sweep's ns per item. One line a method.
# scripts/gpu-tile-check.sh sets datafile (its tile-table.csv), op, title
# and the terminal/output.
set datafile separator ","
set datafile missing ""
set multiplot layout 2, 4 title title noenhanced
set logscale x 2
set xrange [24:340]
set xtics (32, 64, 128, 256)
set grid xtics ytics lc rgb "#dddddd"
set key top left noenhanced font ",8"
patterns = "uniform skewed onebank strided"
methods = "scatter pad split paper cub"
lt_of(M) = sum [i = 1:words(methods)] (word(methods, i) eq M ? i : 0)
sel(M, P) = strcol("op") eq op && strcol("method") eq M && strcol("pattern") eq P
do for [p = 1:words(patterns)] {
    P = word(patterns, p)
    set title P noenhanced
    set xlabel "m"
    set ylabel (p == 1 ? "bank conflicts per item" : "")
    set yrange [0:*]
    set offsets 0, 0, graph 0.45, 0
    plot for [M in methods] datafile \
             using (sel(M, P) ? column("m") : NaN):(column("ncu_conflicts_per_item")) \
             with linespoints lt lt_of(M) pt 7 ps 0.7 title M . " (ncu)", \
         for [M in methods] datafile \
             using (sel(M, P) ? column("m") : NaN):(column("sim_conflicts_per_item")) \
             with points lt lt_of(M) pt 6 ps 1.2 notitle
}
do for [p = 1:words(patterns)] {
    P = word(patterns, p)
    set title P noenhanced
    set ylabel (p == 1 ? "ns per item" : "")
    set logscale y 10
    set yrange [*:*]
    set offsets 0, 0, graph 0.6, 0
    plot for [M in methods] datafile \
             using (sel(M, P) ? column("m") : NaN):(column("ns_per_item")) \
             with linespoints lt lt_of(M) pt 7 ps 0.7 title M
    unset logscale y
}
unset multiplot
