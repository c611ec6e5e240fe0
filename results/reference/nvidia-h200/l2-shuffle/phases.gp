# gnuplot -e "out='phases.png'" phases.gp: the figure of phases.dat.
if (!exists("out")) out = "phases.png"
set terminal pngcairo size 640,480 font "sans,10"
set output out
set title "2^{29}+1 u64 shuffled on an NVIDIA H200, by phase (permbench 9148455)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.5
set ylabel "ms (one run)"
set yrange [0:30]
set key top left vertical Left reverse font "sans,9"
set arrow from graph 0, first 14.4554 to graph 1, first 14.4554 front nohead dt 2 lw 1.5 lc rgb "#444444"
set label "random gather, 14.46 ms" at graph 0.01, first 15.3 font "sans,9"
plot "phases.dat" using 2:xtic(1) title "first split (whole array)", \
     "" using 3 title "last level's split (l2: with the finish, group by group)", \
     "" using 4 title "finish (segment kernel)"
