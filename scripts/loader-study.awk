# loader-study.awk: where each bias metric stops telling a loader shuffle
# from uniform, from the quality.csv files of scripts/loader-study.sh.
#
#   awk -F, -f loader-study.awk n1000-s750/quality.csv ...
#
# For a buffer or a block (bigger mixes more) the breaking point is the
# smallest value from which the metric passes at every larger value tested;
# for a shard (smaller mixes more) the largest value up to which it passes
# at every smaller one. Printed as the value and as a fraction of n; NaN
# when it fails even at the end of the sweep. cpu-fisher-yates's verdicts are
# counted beside: at alpha = 0.01 about one test in a hundred of the
# uniform baseline fails by chance, and a breaking point is only as sharp.
FNR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    next
}
{
    g = $col["group"]; p = $col["param"]; v = $col["value"] + 0; n = $col["n"]
    t = $col["test"]; s = $col["samples"]; pass = $col["verdict"] == "PASS"
    # fisher-yates: its name in runs written before the modules' rename
    if (g == "cpu-fisher-yates" || g == "fisher-yates" || g == "") {
        fy[n SUBSEP s SUBSEP t] = $col["verdict"]
        next
    }
    k = g SUBSEP p SUBSEP n SUBSEP s SUBSEP t
    if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
    vals[k] = vals[k] " " v
    ok[k, v] = pass
}
END {
    print "group,param,n,samples,test,breaking_value,breaking_fraction,tested,fisher_yates"
    for (i = 1; i <= nk; i++) {
        k = keys[i]
        split(k, f, SUBSEP)
        m = split(vals[k], a, " ")
        # sort the values ascending (a few, insertion sort)
        for (x = 2; x <= m; x++) { y = a[x] + 0; for (z = x - 1; z >= 1 && a[z] + 0 > y; z--) a[z + 1] = a[z]; a[z + 1] = y }
        down = f[2] == "shard"
        br = "NaN"
        if (!down) {
            for (x = m; x >= 1 && ok[k, a[x] + 0]; x--) br = a[x]
        } else {
            for (x = 1; x <= m && ok[k, a[x] + 0]; x++) br = a[x]
        }
        frac = br == "NaN" ? "NaN" : sprintf("%.6g", br / f[3])
        b = f[3] SUBSEP f[4] SUBSEP f[5]
        printf "%s,%s,%s,%s,%s,%s,%s,%d,%s\n", f[1], f[2], f[3], f[4], f[5], br, frac, m, (b in fy) ? fy[b] : "-"
    }
}
