/* The multisplit family's contracts: the twin's answer and the three checks
 * (stable: bit for bit; unstable: per-bucket multisets; sorted: order in the
 * sort's bits, a permutation, stable among equal sort keys). Each check
 * names the first place it fails, so a broken kernel can be debugged from
 * the one line the harness prints. */
#include <inttypes.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "families/multisplit/ms_host_bucket.h"
#include "families/multisplit/ms_problem.h"

#define NONE UINT64_MAX

/* The problem's bucket identifier, its splitters pointer taken afresh: a
 * problem copied by value still points at its own splitters. */
static pb_bucket_fn ms_fn(const pb_ms_problem *p)
{
    pb_bucket_fn f = p->fn;
    f.splitters = p->splitters;
    return f;
}

int pb_ms_twin_answer(pb_ms_problem *p, pb_err *err)
{
    if (p->have_twin) return 0;
    size_t bytes = (size_t)p->n * sizeof(uint32_t);
    p->twin_keys = malloc(bytes ? bytes : 1);
    if (p->pairs) p->twin_vals = malloc(bytes ? bytes : 1);
    if (!p->twin_keys || (p->pairs && !p->twin_vals)) {
        free(p->twin_keys), free(p->twin_vals);
        p->twin_keys = p->twin_vals = NULL;
        return pb_err_set(err, "cannot allocate %zu bytes for the multisplit twin's answer",
                          bytes * (p->pairs ? 2 : 1));
    }
    /* The parallel split gives the sequential result item for item (tested
     * against an independent naive split), so the twin may use every core. */
    pb_bucket_fn f = ms_fn(p);
    pb_ms_split(&f, p->keys, p->vals, p->n, p->twin_keys, p->twin_vals, p->offsets,
                omp_get_max_threads());
    p->have_twin = true;
    return 0;
}

static int need_vals(const pb_ms_problem *p, const uint32_t *vals, pb_err *err)
{
    if (p->pairs && !vals && p->n > 0)
        return pb_err_set(err, "key-value multisplit: the output has no values");
    return 0;
}

int pb_ms_check_stable(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals, pb_err *err)
{
    if (pb_ms_twin_answer(p, err) || need_vals(p, vals, err)) return -1;
    const uint64_t n = p->n;
    if (n == 0) return 0;
    const uint32_t *tk = p->twin_keys, *tv = p->twin_vals;
    if (memcmp(keys, tk, n * sizeof *keys) == 0 &&
        (!p->pairs || memcmp(vals, tv, n * sizeof *vals) == 0))
        return 0;
    uint64_t i = 0;
    while (i < n && keys[i] == tk[i] && (!p->pairs || vals[i] == tv[i])) i++;
    pb_bucket_fn f = ms_fn(p);
    if (p->pairs)
        return pb_err_set(err,
                          "multisplit differs from the twin at position %" PRIu64 " of %" PRIu64
                          ": key 0x%08x (bucket %u) value %u, expected key 0x%08x (bucket %u) "
                          "value %u",
                          i, n, keys[i], pb_bucket_of(f, keys[i]), vals[i], tk[i],
                          pb_bucket_of(f, tk[i]), tv[i]);
    return pb_err_set(err,
                      "multisplit differs from the twin at position %" PRIu64 " of %" PRIu64
                      ": key 0x%08x (bucket %u), expected key 0x%08x (bucket %u)",
                      i, n, keys[i], pb_bucket_of(f, keys[i]), tk[i], pb_bucket_of(f, tk[i]));
}

/* Per-bucket fingerprints (sum and xor of pb_ms_item_mix) of items [0, n),
 * each counted in its key's bucket (every item in bucket 0 when f is NULL).
 * With `offsets`, also checks that position i lies inside its key's bucket;
 * returns the first position that does not (NONE if all do). */
static uint64_t ms_fingerprint(const pb_bucket_fn *f, const uint32_t *keys, const uint32_t *vals,
                               uint64_t n, const uint64_t *offsets, uint64_t *sum, uint64_t *xr)
{
    pb_ms_range_table table, *rt = NULL;
    if (f && f->kind == PB_BUCKET_RANGE && n >= PB_MS_RT_MIN)
        pb_ms_range_table_build(f, rt = &table);
    uint32_t m = f ? f->m : 1;
    memset(sum, 0, m * sizeof *sum);
    memset(xr, 0, m * sizeof *xr);
    uint64_t first = NONE;
#pragma omp parallel if (n >= PB_MS_PAR_MIN) reduction(min : first)
    {
        uint64_t s[PB_MS_MAX_BUCKETS] = {0}, x[PB_MS_MAX_BUCKETS] = {0};
#pragma omp for schedule(static)
        for (uint64_t i = 0; i < n; i++) {
            uint32_t b = f ? pb_ms_bucket_host(*f, rt, keys[i]) : 0;
            uint64_t h = pb_ms_item_mix(keys[i], vals ? vals[i] : 0);
            s[b] += h;
            x[b] ^= h;
            if (offsets && (i < offsets[b] || i >= offsets[b + 1]) && i < first) first = i;
        }
#pragma omp critical(pb_ms_fingerprint)
        for (uint32_t b = 0; b < m; b++) sum[b] += s[b], xr[b] ^= x[b];
    }
    return first;
}

/* The bucket whose range of the offsets holds position i. */
static uint32_t bucket_at(const uint64_t *offsets, uint32_t m, uint64_t i)
{
    uint32_t b = 0;
    while (b + 1 < m && offsets[b + 1] <= i) b++;
    return b;
}

int pb_ms_check_contract(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals, pb_err *err)
{
    if (pb_ms_twin_answer(p, err) || need_vals(p, vals, err)) return -1;
    const uint32_t m = p->m;
    const uint32_t *v_in = p->pairs ? p->vals : NULL, *v_out = p->pairs ? vals : NULL;
    pb_bucket_fn f = ms_fn(p);
    uint64_t s_in[PB_MS_MAX_BUCKETS], x_in[PB_MS_MAX_BUCKETS];
    uint64_t s_out[PB_MS_MAX_BUCKETS], x_out[PB_MS_MAX_BUCKETS];
    ms_fingerprint(&f, p->keys, v_in, p->n, NULL, s_in, x_in);
    uint64_t bad = ms_fingerprint(&f, keys, v_out, p->n, p->offsets, s_out, x_out);
    if (bad != NONE) {
        uint32_t want = bucket_at(p->offsets, m, bad), got = pb_bucket_of(f, keys[bad]);
        return pb_err_set(err,
                          "multisplit position %" PRIu64 " holds key 0x%08x of bucket %u, but "
                          "it lies in bucket %u ([%" PRIu64 ", %" PRIu64 ") by the twin's offsets)",
                          bad, keys[bad], got, want, p->offsets[want], p->offsets[want + 1]);
    }
    for (uint32_t b = 0; b < m; b++)
        if (s_in[b] != s_out[b] || x_in[b] != x_out[b])
            return pb_err_set(err,
                              "multisplit bucket %u ([%" PRIu64 ", %" PRIu64 ")) does not hold "
                              "the input's items of that bucket: an item was lost, duplicated "
                              "or changed",
                              b, p->offsets[b], p->offsets[b + 1]);
    return 0;
}

int pb_ms_check_sorted(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals,
                       unsigned end_bit, pb_err *err)
{
    if (need_vals(p, vals, err)) return -1;
    const uint64_t n = p->n;
    const uint32_t mask = end_bit >= 32 ? UINT32_MAX : (UINT32_C(1) << end_bit) - 1;
    const uint32_t *v = p->pairs ? vals : NULL;
    /* Order first: the first position where the sort keys descend, or
     * (pairs) equal sort keys' input positions do not ascend. */
    uint64_t first = NONE;
#pragma omp parallel for schedule(static) if (n >= PB_MS_PAR_MIN) reduction(min : first)
    for (uint64_t i = 1; i < n; i++) {
        uint32_t a = keys[i - 1] & mask, b = keys[i] & mask;
        if ((b < a || (v && a == b && v[i] <= v[i - 1])) && i < first) first = i;
    }
    if (first != NONE) {
        uint64_t i = first;
        if ((keys[i] & mask) < (keys[i - 1] & mask))
            return pb_err_set(err,
                              "sorted multisplit out of order at position %" PRIu64 ": key "
                              "0x%08x after 0x%08x (sorting bits [0, %u))",
                              i, keys[i], keys[i - 1], end_bit < 32 ? end_bit : 32);
        return pb_err_set(err,
                          "sorted multisplit not stable at position %" PRIu64 ": equal sort "
                          "keys 0x%08x and 0x%08x with input positions %u after %u",
                          i, keys[i - 1], keys[i], v[i], v[i - 1]);
    }
    uint64_t s_in, x_in, s_out, x_out;
    ms_fingerprint(NULL, p->keys, p->pairs ? p->vals : NULL, n, NULL, &s_in, &x_in);
    ms_fingerprint(NULL, keys, v, n, NULL, &s_out, &x_out);
    if (s_in != s_out || x_in != x_out)
        return pb_err_set(err, "sorted multisplit is not a permutation of its input: an item "
                               "was lost, duplicated or changed");
    return 0;
}

int pb_ms_sorted_answer(const pb_ms_problem *p, unsigned end_bit, uint32_t **keys, uint32_t **vals,
                        pb_err *err)
{
    const uint64_t n = p->n;
    const uint32_t mask = end_bit >= 32 ? UINT32_MAX : (UINT32_C(1) << end_bit) - 1;
    size_t bytes = (size_t)(n ? n : 1) * 4;
    uint32_t *k = malloc(bytes), *v = p->pairs ? malloc(bytes) : NULL;
    uint32_t *tk = malloc(bytes), *tv = p->pairs ? malloc(bytes) : NULL;
    if (!k || !tk || (p->pairs && (!v || !tv))) {
        free(k), free(v), free(tk), free(tv);
        return pb_err_set(err, "out of memory for the sorted answer of %" PRIu64 " keys", n);
    }
    memcpy(k, p->keys, (size_t)n * 4);
    if (v) memcpy(v, p->vals, (size_t)n * 4);
    /* LSD radix sort, 8 bits a pass: each pass is stable, so the whole is. */
    for (unsigned shift = 0; shift < end_bit && shift < 32; shift += 8) {
        uint64_t count[257] = {0};
        for (uint64_t i = 0; i < n; i++) count[((k[i] & mask) >> shift & 0xff) + 1]++;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (uint64_t i = 0; i < n; i++) {
            uint64_t o = count[(k[i] & mask) >> shift & 0xff]++;
            tk[o] = k[i];
            if (v) tv[o] = v[i];
        }
        uint32_t *t = k;
        k = tk, tk = t;
        t = v, v = tv, tv = t;
    }
    free(tk);
    free(tv);
    *keys = k;
    *vals = v;
    return 0;
}
