/* The host model of radik's passes on one row, for one key width: included
 * by test_radik_digit.c twice, as radik_digit.h includes radik_digit_w.h,
 * with RD_KEY (uint32_t or uint64_t), RD_ROW (pb_radik_row or
 * pb_radik_row64), RD_W(name) (the width's name of a function: name, or
 * name##64), RD_KMAX (the order keys' largest), RD_BITS and RD_ORDER(filter,
 * scaled) (radik.cu's launches: F(ilter), I(nput), C(andidates)) defined,
 * and undefines them. Defines RD_W(rd_model), RD_W(rd_cmp_desc) and
 * RD_W(rd_lowest). No include guard: that is the point. */

static int RD_W(rd_model)(const RD_KEY *keys, uint32_t len, uint64_t k, int scaled, RD_KEY ref,
                          int filter, int strict, RD_KEY thr, RD_KEY fref, RD_KEY *out_keys,
                          uint32_t *nout_total, int *fell_back, uint32_t *tie_idx)
{
    static uint32_t hist[PB_RADIK_BINS];
    RD_KEY *cand = malloc((len ? len : 1) * sizeof *cand);
    RD_KEY *next = malloc((len ? len : 1) * sizeof *next);
    RD_ROW r;
    RD_W(pb_radik_row_init)(&r, len, k, scaled, ref, RD_KMAX);
    uint32_t st = !strict  ? PB_RADIK_STRICT_OFF
                  : tie_idx ? PB_RADIK_STRICT_COUNT
                            : PB_RADIK_STRICT_KEEP;
    if (filter) RD_W(pb_radik_row_filter)(&r, thr, fref, st);
    uint32_t nout = 0, ties = 0, ncand = 0;
    *fell_back = 0;
    /* The row as the GPU leaves it: no select follows the last pass. */
    RD_ROW gpu_view;
    for (const char *q = RD_ORDER(filter, scaled); *q; q++) {
        bool fpass = *q == 'F', input = *q != 'C';
        gpu_view = r;
        uint32_t mode = r.mode, wr = 0;
        if (mode == PB_RADIK_DONE ||
            r.src != (input ? (uint32_t)PB_RADIK_SRC_INPUT : (uint32_t)PB_RADIK_SRC_CAND) ||
            (mode == PB_RADIK_FILTER) != fpass)
            continue;
        const RD_KEY *src = input ? keys : cand;
        uint32_t n = input ? len : r.len_in;
        memset(hist, 0, sizeof hist);
        for (uint32_t i = 0; i < n; i++) {
            RD_KEY key = src[i];
            switch (mode) {
            case PB_RADIK_COUNT: hist[RD_W(pb_radik_digit)(&r, key)]++; break;
            case PB_RADIK_FILTER: {
                /* The GPU's eq slots go in arrival order; any `take` of
                 * the equal keys are the same keys. */
                bool in = r.strict ? key > r.lo : key >= r.lo;
                if (r.strict && key == r.lo && r.eq++ < r.take)
                    in = r.strict == PB_RADIK_STRICT_KEEP;
                if (in) {
                    next[wr++] = key;
                    hist[RD_W(pb_radik_digit)(&r, key)]++;
                }
                break;
            }
            case PB_RADIK_SPLIT:
                if (key > r.hi) out_keys[nout++] = key;
                else if (key >= r.lo) {
                    next[wr++] = key;
                    hist[RD_W(pb_radik_digit)(&r, key)]++;
                }
                break;
            case PB_RADIK_TAKE:
                if (key >= r.lo) out_keys[nout++] = key;
                break;
            case PB_RADIK_FINAL:
                /* lowest-index (tie_idx): the ties wait for the tie pass. */
                if (key > r.hi) out_keys[nout++] = key;
                else if (!tie_idx && key == r.lo && ties++ < r.need)
                    out_keys[r.take - r.need + ties - 1] = key;
                break;
            }
        }
        if (mode == PB_RADIK_SPLIT || mode == PB_RADIK_FILTER) {
            RD_KEY *t = cand;
            cand = next;
            next = t;
            ncand = wr;
        }
        uint32_t bin = 0, above = 0, count = 0;
        if (mode == PB_RADIK_COUNT || mode == PB_RADIK_SPLIT || mode == PB_RADIK_FILTER) {
            uint32_t seen = 0;
            for (uint32_t b = PB_RADIK_BINS; b-- > 0;) {
                if (seen + hist[b] >= r.need) {
                    bin = b;
                    above = seen;
                    count = hist[b];
                    break;
                }
                seen += hist[b];
            }
        }
        RD_W(pb_radik_row_advance)(&r, bin, above, count, ncand);
        if (mode == PB_RADIK_FILTER && r.mode == PB_RADIK_COUNT) *fell_back = 1;
        if (mode == PB_RADIK_FILTER && r.tie_need) rd_strict_pivot++;
        if (q[1]) gpu_view = r;
    }
    free(cand);
    free(next);
    if (tie_idx) {
        /* radik_ties.cuh's pass, sequentially: the first `need` keys equal
         * to the pivot in index order, after the take - need above it. */
        uint32_t need = RD_W(pb_radik_tie_need)(&gpu_view);
        RD_KEY pivot = RD_W(pb_radik_tie_key)(&gpu_view);
        if (need && nout != gpu_view.take - need) return -1;
        for (uint32_t i = 0; i < len && ties < need; i++)
            if (keys[i] == pivot) {
                out_keys[gpu_view.take - need + ties] = keys[i];
                tie_idx[ties++] = i;
            }
        *nout_total = nout + ties;
        return r.mode == PB_RADIK_DONE ? (int)ties : -1;
    }
    *nout_total = nout + (ties < r.need ? ties : r.need);
    return r.mode == PB_RADIK_DONE ? 0 : -1;
}

static int RD_W(rd_cmp_desc)(const void *a, const void *b)
{
    RD_KEY x = *(const RD_KEY *)a, y = *(const RD_KEY *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The model with ties = lowest-index at one point: the row finishes, its
 * take keys are the twin's (sorted: the row's keys best first), and its
 * ties are the first indices of the pivot's key, as many as the keys above
 * the pivot leave to fill. Returns 1 on failure (printed). */
static int RD_W(rd_lowest)(const RD_KEY *keys, uint32_t n, uint64_t k, int scaled, RD_KEY ref,
                           int filter, int strict, RD_KEY thr, RD_KEY fref, const RD_KEY *sorted,
                           uint32_t *tie_idx)
{
    uint32_t take = k < n ? (uint32_t)k : n, got = 0;
    RD_KEY *out = malloc((n ? n : 1) * sizeof *out);
    int fell = 0;
    int ties =
        RD_W(rd_model)(keys, n, k, scaled, ref, filter, strict, thr, fref, out, &got, &fell, tie_idx);
    int rc = 0;
    if (ties < 0 || got != take) {
        fprintf(stderr, "lowest-index model (%d-bit): rc %d, %u of %u\n", RD_BITS, ties, got, take);
        rc = 1;
    }
    if (!rc) {
        qsort(out, take, sizeof *out, RD_W(rd_cmp_desc));
        rc = memcmp(out, sorted, take * sizeof *out) != 0;
        if (rc) fprintf(stderr, "lowest-index model (%d-bit): not the twin's keys\n", RD_BITS);
    }
    if (!rc && take > 0 && take < n) {
        /* The keys above the pivot are all in; the rest of take are the
         * pivot's first indices. TAKE rows (every tie needed) choose none. */
        RD_KEY pivot = sorted[take - 1];
        uint32_t above = 0, ntie = 0;
        for (uint32_t i = 0; i < n; i++) {
            above += keys[i] > pivot;
            ntie += keys[i] == pivot;
        }
        uint32_t need = take - above;
        if (ties != 0 && (uint32_t)ties != need) rc = 1;
        if (ties == 0 && need != ntie) rc = 1; /* only a TAKE row chooses none */
        for (uint32_t i = 0, t = 0; i < n && !rc && t < (uint32_t)ties; i++)
            if (keys[i] == pivot && tie_idx[t++] != i) rc = 1;
        if (rc)
            fprintf(stderr, "lowest-index model (%d-bit): %d ties chosen, %u needed of %u; not "
                            "the first indices\n", RD_BITS, ties, need, ntie);
    }
    free(out);
    return rc;
}

#undef RD_KEY
#undef RD_ROW
#undef RD_W
#undef RD_KMAX
#undef RD_BITS
#undef RD_ORDER
