# tile-join.awk: one table of the tile kernels from a gpu-tile-check.sh run.
# Rows of the timing sweeps (results.csv of tile-partition/sort/permute),
# joined on (op, method, pattern, m) with
#   - the simulator's predictions (permbench dmm tile --csv), and
#   - Nsight Compute's counters: the ncu run's results.csv gives the rows
#     in launch order, ncu's raw CSV the kernels in the same order; each
#     kernel's name must be pb_tile_<op>_<method><m>, else the join stops.
# Invoked as
#   awk -f tile-join.awk -v mode=csv|md sim.csv ncu-rows.csv ncu-raw.csv \
#       run-partition/results.csv run-sort/results.csv run-permute/results.csv
# (an empty file stands for a missing input). Portable awk (mawk).

function csvsplit(s, a,    n, i, c, f, q) {
    n = 0; f = ""; q = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(s, i + 1, 1) == "\"") { f = f "\""; i++ } else q = 0
            } else f = f c
        } else if (c == "\"") q = 1
        else if (c == ",") { a[++n] = f; f = "" }
        else f = f c
    }
    a[++n] = f
    return n
}
function num(s) { gsub(/,/, "", s); return s + 0 }
function fmt(x, d) { return x == "" ? "" : sprintf("%." d "f", x) }

BEGIN {
    nmetrics = split("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum " \
                     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum " \
                     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum " \
                     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum " \
                     "smsp__sass_inst_executed_op_shared_ld.sum " \
                     "smsp__sass_inst_executed_op_shared_st.sum " \
                     "gpu__time_duration.sum", metric, " ")
    short[1] = "ncu_ld_conflicts"; short[2] = "ncu_st_conflicts"
    short[3] = "ncu_ld_wavefronts"; short[4] = "ncu_st_wavefronts"
    short[5] = "ncu_ld_inst"; short[6] = "ncu_st_inst"; short[7] = "ncu_ns"
    split("partition sort permute", opnames, " ")
    nrows = 0; nkernels = 0; nncurows = 0; joined = 1
}

FNR == 1 { file++; for (k in col) delete col[k]; hdr = 1 }

# 1: the simulator's predictions.
file == 1 {
    n = csvsplit($0, f)
    if (hdr) { for (i = 1; i <= n; i++) col[f[i]] = i; hdr = 0; next }
    key = f[col["op"]] SUBSEP f[col["method"]] SUBSEP f[col["pattern"]] SUBSEP f[col["m"]]
    sim_steps[key] = num(f[col["sim_ld_steps_per_tile"]]) + num(f[col["sim_st_steps_per_tile"]])
    sim_ldc[key] = num(f[col["sim_ld_conflicts_per_item"]])
    sim_stc[key] = num(f[col["sim_st_conflicts_per_item"]])
    sim_ok[key] = f[col["sim_correct"]]
    next
}

# 2: the rows of the ncu run, in order.
file == 2 {
    n = csvsplit($0, f)
    if (hdr) { for (i = 1; i <= n; i++) col[f[i]] = i; hdr = 0; next }
    split(f[col["series"]], part, "-")
    nncurows++
    ncu_key[nncurows] = part[1] SUBSEP part[2] SUBSEP part[3] SUBSEP f[col["axis_value"]]
    ncu_n[nncurows] = num(f[col["n"]])
    ncu_want[nncurows] = "pb_tile_" part[1] "_" part[2] "<" f[col["axis_value"]] ">"
    next
}

# 3: ncu's raw page: a header of names, maybe a row of units, one row a kernel.
file == 3 {
    n = csvsplit($0, f)
    if (hdr) {
        for (i = 1; i <= n; i++) col[f[i]] = i
        hdr = 0
        if ("ID" in col)
            for (k = 1; k <= nmetrics; k++)
                if (!(metric[k] in col)) { print "tile-join: ncu has no column " metric[k] > "/dev/stderr"; joined = 0 }
        next
    }
    if (f[col["ID"]] !~ /^[0-9]+$/) next
    nkernels++
    kname[nkernels] = f[col["Kernel Name"]]
    for (k = 1; k <= nmetrics; k++) kval[nkernels, k] = (metric[k] in col) ? num(f[col[metric[k]]]) : ""
    next
}

# 4-6: the timing sweeps.
{
    n = csvsplit($0, f)
    if (hdr) { for (i = 1; i <= n; i++) col[f[i]] = i; hdr = 0; next }
    mod = f[col["module"]]
    if (mod !~ /^tile-/) next
    op = substr(mod, 6)
    # Sections are method-pattern (or op-method-pattern, as in tile-quick.ini).
    np = split(f[col["series"]], part, "-")
    me = part[np - 1]; pat = part[np]
    m = f[col["axis_value"]]
    key = op SUBSEP me SUBSEP pat SUBSEP m
    nrows++
    rkey[nrows] = key
    rop[nrows] = op; rmethod[nrows] = me; rpattern[nrows] = pat; rm[nrows] = m
    rn[nrows] = num(f[col["n"]])
    rms[nrows] = f[col["median_ms"]]
    rstatus[nrows] = f[col["status"]]
    rns[nrows] = f[col["median_ms"]] == "" ? "" : num(f[col["median_ms"]]) * 1e6 / rn[nrows]
}

END {
    # ncu: kernel i is row i; names checked.
    if (nkernels > 0 && nkernels != nncurows) {
        printf "tile-join: %d kernels profiled, %d rows in the ncu run: not joined\n", nkernels, nncurows > "/dev/stderr"
        joined = 0
    }
    for (i = 1; joined && i <= nkernels; i++) {
        k0 = kname[i]
        gsub(/\(int\)/, "", k0) # some demanglers write <(int)64>
        if (index(k0, ncu_want[i]) == 0) {
            printf "tile-join: kernel %d is '%s', its row wants %s: not joined\n", i, kname[i], ncu_want[i] > "/dev/stderr"
            joined = 0
        }
    }
    if (joined)
        for (i = 1; i <= nkernels; i++) {
            key = ncu_key[i]
            have[key] = 1
            tiles = 0
            split(key, kp, SUBSEP)
            items = ncu_n[i]
            tiles = items / (32 * kp[4])
            for (k = 1; k <= 6; k++) nval[key, k] = kval[i, k]
            ncu_ldc[key] = kval[i, 1] / items
            ncu_stc[key] = kval[i, 2] / items
            ncu_ldw[key] = kval[i, 3] / items
            ncu_stw[key] = kval[i, 4] / items
            ncu_inst[key] = (kval[i, 5] + kval[i, 6]) / tiles
        }

    if (mode == "csv") {
        print "op,method,pattern,m,n,status,median_ms,ns_per_item,sim_steps_per_tile,sim_ld_conflicts_per_item,sim_st_conflicts_per_item,sim_conflicts_per_item,ncu_shared_inst_per_tile,ncu_ld_conflicts_per_item,ncu_st_conflicts_per_item,ncu_conflicts_per_item,ncu_ld_wavefronts_per_item,ncu_st_wavefronts_per_item"
        for (r = 1; r <= nrows; r++) {
            key = rkey[r]
            s1 = (key in sim_steps) ? fmt(sim_steps[key], 1) : ""
            s2 = (key in sim_steps) ? fmt(sim_ldc[key], 5) : ""
            s3 = (key in sim_steps) ? fmt(sim_stc[key], 5) : ""
            s4 = (key in sim_steps) ? fmt(sim_ldc[key] + sim_stc[key], 5) : ""
            c1 = (key in have) ? fmt(ncu_inst[key], 1) : ""
            c2 = (key in have) ? fmt(ncu_ldc[key], 5) : ""
            c3 = (key in have) ? fmt(ncu_stc[key], 5) : ""
            c4 = (key in have) ? fmt(ncu_ldc[key] + ncu_stc[key], 5) : ""
            c5 = (key in have) ? fmt(ncu_ldw[key], 5) : ""
            c6 = (key in have) ? fmt(ncu_stw[key], 5) : ""
            printf "%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", rop[r], rmethod[r], rpattern[r], rm[r], rn[r], rstatus[r], rms[r], fmt(rns[r], 4), s1, s2, s3, s4, c1, c2, c3, c4, c5, c6
        }
        exit
    }

    # Markdown: one table an operation; per row a (pattern, m), per method
    # ns/item | ncu conflicts/item | sim conflicts/item, and the speedup of
    # each method over scatter.
    for (o = 1; o <= 3; o++) {
        op = opnames[o]
        nm = 0
        for (r = 1; r <= nrows; r++) if (rop[r] == op && !((op, rmethod[r]) in seen)) { seen[op, rmethod[r]] = 1; meth[++nm] = rmethod[r] }
        if (nm == 0) continue
        printf "\n### %s\n\n", op
        printf "Per method: ns per item (timing sweep) / bank conflicts per item measured by ncu (load + store) / predicted by the simulator; x: speedup over scatter (same pattern, m).\n\n"
        line = "| pattern | m |"; sep = "| --- | --- |"
        for (k = 1; k <= nm; k++) { line = line " " meth[k] " |"; sep = sep " --- |" }
        print line; print sep
        for (r = 1; r <= nrows; r++) {
            if (rop[r] != op || ((op, rpattern[r], rm[r]) in done)) continue
            done[op, rpattern[r], rm[r]] = 1
            base = ""
            for (q = 1; q <= nrows; q++)
                if (rop[q] == op && rpattern[q] == rpattern[r] && rm[q] == rm[r] && rmethod[q] == "scatter") base = rns[q]
            line = "| " rpattern[r] " | " rm[r] " |"
            for (k = 1; k <= nm; k++) {
                cell = " - |"
                for (q = 1; q <= nrows; q++) {
                    if (rop[q] != op || rpattern[q] != rpattern[r] || rm[q] != rm[r] || rmethod[q] != meth[k]) continue
                    key = rkey[q]
                    t = rns[q] == "" ? "?" : fmt(rns[q], 3)
                    c = (key in have) ? fmt(ncu_ldc[key] + ncu_stc[key], 3) : "n/a"
                    s = (key in sim_steps) ? fmt(sim_ldc[key] + sim_stc[key], 3) : "n/a"
                    x = (base != "" && rns[q] != "" && rns[q] > 0) ? " x" fmt(base / rns[q], 2) : ""
                    st = rstatus[q] == "ok" ? "" : " " rstatus[q]
                    cell = " " t " / " c " / " s x st " |"
                }
                line = line cell
            }
            print line
        }
        # Steps: the simulator's shared-memory instructions a tile against
        # the ones ncu counted (smsp__sass_inst_executed_op_shared_ld + _st).
        printf "\nShared-memory instructions a tile: simulator steps / ncu (executed warp instructions).\n\n"
        line = "| pattern | m |"; sep = "| --- | --- |"
        for (k = 1; k <= nm; k++) { line = line " " meth[k] " |"; sep = sep " --- |" }
        print line; print sep
        for (r = 1; r <= nrows; r++) {
            if (rop[r] != op || ((op, rpattern[r], rm[r]) in done2)) continue
            done2[op, rpattern[r], rm[r]] = 1
            line = "| " rpattern[r] " | " rm[r] " |"
            for (k = 1; k <= nm; k++) {
                key = op SUBSEP meth[k] SUBSEP rpattern[r] SUBSEP rm[r]
                a = (key in sim_steps) ? fmt(sim_steps[key], 0) : "n/a"
                b = (key in have) ? fmt(ncu_inst[key], 0) : "n/a"
                line = line " " a " / " b " |"
            }
            print line
        }
    }
}
