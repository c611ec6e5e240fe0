# pov-breaking-point.awk: the breaking points of a quality.csv in which one
# group sweeps `iterations` (POV-shuffle) and one unswept group is the
# baseline (cpu-fisher-yates), for every (n, test) both were tested at.
#
#   awk -F, -f pov-breaking-point.awk [-v group=pov] [-v baseline=cpu-fisher-yates] quality.csv
#
# One row per (n, test), sorted by test then n:
#   n, test             the deck size and the test (quality.csv's names)
#   iterations          the iteration counts tested, "min-max"
#   first_pass          the fewest iterations whose verdict is PASS
#   stable_pass         the fewest k such that every tested count >= k passes
#   reach_baseline      the fewest iterations whose statistic is at most the
#                       baseline's (the README's "converge to the observed
#                       value of numpy's shuffle")
#   baseline_statistic, baseline_verdict, threshold, samples
# A breaking point not reached within the tested counts is NaN. Columns are
# found by the header's names; a row whose field count differs from the
# header's (a quoted comma) stops the extraction. Portable awk (mawk).

function die(msg) { print "pov-breaking-point.awk: " msg > "/dev/stderr"; failed = 1; exit 2 }

NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    split("label group param value n test samples statistic threshold verdict", need, " ")
    for (i in need) if (!(need[i] in col)) die("quality.csv has no column " need[i])
    nf = NF
    if (group == "") group = "pov"
    if (baseline == "") baseline = "cpu-fisher-yates"
    next
}
NF != nf { die("line " NR ": " NF " fields, the header has " nf) }
{
    g = $col["group"]; n = $col["n"]; t = $col["test"]; key = n SUBSEP t
    # An older run names the default baseline by its old name (docs/modules.md).
    if (g == baseline || (baseline == "cpu-fisher-yates" && g == "fisher-yates")) {
        bstat[key] = $col["statistic"]; bverd[key] = $col["verdict"]
        bthr[key] = $col["threshold"]; bsamp[key] = $col["samples"]
    } else if (g == group) {
        if ($col["param"] != "iterations") die("line " NR ": group " g " sweeps " $col["param"] ", not iterations")
        it = $col["value"] + 0
        if ((key SUBSEP it) in stat) die("line " NR ": " g " iterations=" it " n=" n " " t " twice")
        stat[key, it] = $col["statistic"]; verd[key, it] = $col["verdict"]
        if (!(key in lo) || it < lo[key]) lo[key] = it
        if (!(key in hi) || it > hi[key]) hi[key] = it
        cnt[key]++
        if (!(key in thr)) { thr[key] = $col["threshold"]; samp[key] = $col["samples"] }
    }
}
END {
    if (failed) exit 2
    if (NR < 2) { print "pov-breaking-point.awk: no rows" > "/dev/stderr"; exit 2 }
    print "n,test,iterations,first_pass,stable_pass,reach_baseline,baseline_statistic,baseline_verdict,threshold,samples"
    # Order: by test (in the order tests first appear by name), then n.
    m = 0
    for (key in lo) keys[++m] = key
    for (i = 2; i <= m; i++) {          # insertion sort: test, then numeric n
        k = keys[i]; split(k, a, SUBSEP)
        for (j = i - 1; j >= 1; j--) {
            split(keys[j], b, SUBSEP)
            if (b[2] < a[2] || (b[2] == a[2] && b[1] + 0 <= a[1] + 0)) break
            keys[j + 1] = keys[j]
        }
        keys[j + 1] = k
    }
    for (i = 1; i <= m; i++) {
        key = keys[i]; split(key, a, SUBSEP)
        if (cnt[key] != hi[key] - lo[key] + 1) {
            print "pov-breaking-point.awk: n=" a[1] " " a[2] ": iterations " lo[key] "-" hi[key] \
                  " with gaps (" cnt[key] " rows)" > "/dev/stderr"
            exit 2
        }
        first = "NaN"; reach = "NaN"; stable = "NaN"
        for (it = lo[key]; it <= hi[key]; it++) {
            if (first == "NaN" && verd[key, it] == "PASS") first = it
            if (reach == "NaN" && (key in bstat) && stat[key, it] + 0 <= bstat[key] + 0) reach = it
        }
        for (it = hi[key]; it >= lo[key] && verd[key, it] == "PASS"; it--) stable = it
        if (key in bstat) { bs = bstat[key]; bv = bverd[key] } else { bs = "NaN"; bv = "" }
        printf "%s,%s,%d-%d,%s,%s,%s,%s,%s,%s,%s\n", a[1], a[2], lo[key], hi[key], first, stable, reach,
               bs, bv, thr[key], samp[key]
    }
}
