# Data-loader shuffles' bias against buffer size (scripts/loader-study.sh):
# one panel a module, one series a metric, the statistic over its value
# expected under uniform (1: as uniform as the metric can tell) against the
# swept size as a fraction of n; filled points pass at alpha, open points
# fail. Read after plots/common.gp.
#
# Set before this script: datafile (one quality.csv), n, samples,
# subtitle, and the terminal/output.
set datafile separator ","
set logscale x 2
set format x "2^{%L}"
set logscale y 10
set xtics 4
set grid ytics lc rgb "#dddddd"
groups = "tfdata webdataset shard py1s py1e"
xlab(g) = g eq "shard" || g eq "py1s" ? "shard length L / n" : (g eq "py1e" ? "block size / n (shards of n/64)" : "buffer B / n")
tests = "positional-tvd position-bins bigram-tvd trigram-tvd predictor-accuracy"
set multiplot layout 2, 3 title sprintf("Data-loader shuffles: bias against size, n = %d, %d samples\n%s", n, samples, subtitle) noenhanced
do for [gi = 1:words(groups)] {
    g = word(groups, gi)
    # one key, in the first panel: the series are the same in every one
    if (gi == 1) { set key inside top right noenhanced font ",8" samplen 2 } else { unset key }
    set title g noenhanced
    set xlabel xlab(g) noenhanced
    set ylabel "statistic / expected under uniform"
    plot for [ti = 1:words(tests)] datafile \
            using (strcol("group") eq g && strcol("test") eq word(tests, ti) ? column("value") / n : NaN):(column("statistic") / column("expected")) \
            with lines lt ti lw 1.5 title word(tests, ti), \
         for [ti = 1:words(tests)] datafile \
            using (strcol("group") eq g && strcol("test") eq word(tests, ti) && strcol("verdict") eq "PASS" ? column("value") / n : NaN):(column("statistic") / column("expected")) \
            with points lt ti pt 7 ps 0.7 notitle, \
         for [ti = 1:words(tests)] datafile \
            using (strcol("group") eq g && strcol("test") eq word(tests, ti) && strcol("verdict") ne "PASS" ? column("value") / n : NaN):(column("statistic") / column("expected")) \
            with points lt ti pt 6 ps 0.9 notitle
}
