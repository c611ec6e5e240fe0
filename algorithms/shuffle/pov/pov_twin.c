#include "algorithms/shuffle/pov/pov_twin.h"

#include <stdlib.h>
#include <string.h>


int pb_pov_check(uint64_t n, const pb_pov_params *p, pb_err *err)
{
    if (p->iterations > PB_POV_MAX_ITERATIONS)
        return pb_err_set(err, "pov: iterations %u: at most %d", p->iterations, PB_POV_MAX_ITERATIONS);
    if (p->block < 1 || p->vblock < 1 || (uint64_t)p->block * p->vblock > PB_POV_MAX_VBLOCK_ITEMS)
        return pb_err_set(err, "pov: block %u x vblock %u items: a virtual block holds 1 .. %d items", p->block,
                          p->vblock, PB_POV_MAX_VBLOCK_ITEMS);
    if (n > PB_POV_MAX_N) return pb_err_set(err, "pov: n = %llu: at most 2^32 - 1", (unsigned long long)n);
    if (pb_pov_vblocks(n, p) >= PB_POV_MAX_VBLOCKS)
        return pb_err_set(err, "pov: n = %llu makes %llu virtual blocks: fewer than 2^26 - 2 (larger blocks)",
                          (unsigned long long)n, (unsigned long long)pb_pov_vblocks(n, p));
    return 0;
}

/* Small decks (the battery's: n = 100 is 2 blocks at the defaults) sort
 * their few keys by insertion on the stack: a radix sort's eight passes
 * and three allocations would cost a hundred times the old Fisher-Yates. */
#define POV_SMALL_SORT 128

/* pb_pov_assign with its scratch given (pov_scratch's; NULL for decks of
 * at most POV_SMALL_SORT blocks). */
static void pov_assign(uint32_t *sigma, uint64_t nblocks, uint64_t seed, uint64_t sample, uint32_t it, int threads,
                       uint64_t *scratch)
{
    if (nblocks <= POV_SMALL_SORT) {
        /* Insertion sort of (key, block): stable, as the radix sort, so the
         * order is the same. */
        uint64_t small[POV_SMALL_SORT];
        for (uint64_t b = 0; b < nblocks; b++) {
            uint64_t k = pb_pov_block_key(seed, sample, it, b), j = b;
            for (; j > 0 && small[j - 1] > k; j--) small[j] = small[j - 1], sigma[j] = sigma[j - 1];
            small[j] = k, sigma[j] = (uint32_t)b;
        }
        return;
    }
    uint64_t *key = scratch, *key2 = scratch + nblocks;
    uint32_t *sigma2 = (uint32_t *)(scratch + 2 * nblocks);
#pragma omp parallel for num_threads(threads > 0 ? threads : 1) schedule(static) if (nblocks >= 65536)
    for (uint64_t b = 0; b < nblocks; b++) key[b] = pb_pov_block_key(seed, sample, it, b), sigma[b] = (uint32_t)b;
    /* LSD radix sort of (key, block), a byte a pass: stable, so equal keys
     * keep block order, as CUB's radix sort on the GPU does. Eight passes:
     * the result ends where it began. */
    uint64_t *k = key, *k2 = key2;
    uint32_t *s = sigma, *s2 = sigma2;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        uint64_t count[257] = {0};
        for (uint64_t b = 0; b < nblocks; b++) count[((k[b] >> shift) & 255) + 1]++;
        for (unsigned d = 0; d < 256; d++) count[d + 1] += count[d];
        for (uint64_t b = 0; b < nblocks; b++) {
            uint64_t at = count[(k[b] >> shift) & 255]++;
            k2[at] = k[b], s2[at] = s[b];
        }
        uint64_t *tk = k;
        uint32_t *ts = s;
        k = k2, k2 = tk, s = s2, s2 = ts;
    }
}

/* The radix sort's scratch for nblocks blocks (one allocation: two key
 * arrays, then a second sigma); NULL where none is needed or on no memory
 * (*ok says which). */
static uint64_t *pov_scratch(uint64_t nblocks, int *ok)
{
    *ok = 1;
    if (nblocks <= POV_SMALL_SORT) return NULL;
    uint64_t *key = malloc(nblocks * (2 * sizeof(uint64_t) + sizeof(uint32_t)));
    *ok = key != NULL;
    return key;
}

int pb_pov_assign(uint32_t *sigma, uint64_t nblocks, uint64_t seed, uint64_t sample, uint32_t it, int threads)
{
    int ok;
    uint64_t *key = pov_scratch(nblocks, &ok);
    if (ok) pov_assign(sigma, nblocks, seed, sample, it, threads, key);
    free(key);
    return ok ? 0 : -1;
}

int pb_pov_layout(uint64_t n, const pb_pov_params *p, uint64_t seed, uint64_t sample, uint32_t it, int threads,
                  uint32_t *sigma, uint64_t *off, pb_err *err)
{
    if (pb_pov_assign(sigma, pb_pov_blocks(n, p->block), seed, sample, it, threads))
        return pb_err_set(err, "pov: out of memory for the blocks' sort keys");
    *off = pb_pov_offset(n, p->block, seed, sample, it);
    return 0;
}

/* Virtual block v: gather its items (blocks in sigma order, each from its
 * circular start) into buf, Fisher-Yates over a permutation of their
 * places (perm) rather than over the items, then write item perm[l] to
 * place l: the output of swapping the items themselves, with one write an
 * item whatever its width. Inlined with a constant width, so each item
 * moves by one load and store. */
static inline void pov_vblock(char *a, uint64_t n, unsigned ib, const pb_pov_params *p, uint64_t off,
                              const uint32_t *sigma, uint64_t nblocks, uint32_t v, uint64_t seed,
                              uint64_t sample, uint32_t it, uint32_t *pos, char *buf)
{
    uint32_t m = 0, *perm = pos + (size_t)p->block * p->vblock;
    for (uint64_t s = (uint64_t)v * p->vblock; s < nblocks && s < ((uint64_t)v + 1) * p->vblock; s++) {
        uint64_t b = sigma[s];
        uint32_t len = pb_pov_block_len(n, p->block, b);
        for (uint32_t t = 0; t < len; t++) pos[m++] = (uint32_t)pb_pov_position(n, p->block, off, b, t);
    }
    for (uint32_t i = 0; i < m; i++) memcpy(buf + (size_t)i * ib, a + (size_t)pos[i] * ib, ib), perm[i] = i;
    /* Steps m .. 2; the Philox words of a group of four steps are
     * computed once (a rejected draw goes to pb_pov_draw's retries). */
    philox4x32_ctr_t w = {{0, 0, 0, 0}};
    uint32_t group = UINT32_MAX;
    for (uint32_t i = m; i > 1; i--) {
        uint32_t j;
        if (i >> 2 != group) group = i >> 2, w = pb_pov_words(seed, sample, it, v, group, 0);
        if (!pb_lemire_pick(w.v[i & 3], i, &j)) j = pb_pov_draw(seed, sample, it, v, i, i);
        uint32_t x = perm[i - 1];
        perm[i - 1] = perm[j], perm[j] = x;
    }
    for (uint32_t i = 0; i < m; i++) memcpy(a + (size_t)pos[i] * ib, buf + (size_t)perm[i] * ib, ib);
}

static void pov_vblocks(char *a, uint64_t n, unsigned ib, const pb_pov_params *p, uint64_t off,
                        const uint32_t *sigma, uint64_t nblocks, uint32_t first, uint32_t last, uint64_t seed,
                        uint64_t sample, uint32_t it, uint32_t *pos, char *buf)
{
    for (uint32_t v = first; v < last; v++) {
        switch (ib) {
        case 4: pov_vblock(a, n, 4, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        case 8: pov_vblock(a, n, 8, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        case 16: pov_vblock(a, n, 16, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        case 64: pov_vblock(a, n, 64, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        case 256: pov_vblock(a, n, 256, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        default: pov_vblock(a, n, ib, p, off, sigma, nblocks, v, seed, sample, it, pos, buf); break;
        }
    }
}

int pb_pov_shuffle(void *a, uint64_t n, unsigned item_bytes, const pb_pov_params *p, uint64_t seed,
                   uint64_t sample, int threads, uint32_t *sigma, pb_err *err)
{
    if (pb_pov_check(n, p, err)) return -1;
    if (n < 2) return 0;
    uint64_t nblocks = pb_pov_blocks(n, p->block);
    uint32_t nv = (uint32_t)pb_pov_vblocks(n, p);
    size_t most = (size_t)p->block * p->vblock;
    int failed = 0, ok;
    /* sigma's sort scratch, once for every iteration. */
    uint64_t *key = pov_scratch(nblocks, &ok);
    if (!ok) return pb_err_set(err, "pov: out of memory for the blocks' sort keys");
    for (uint32_t it = 0; it < p->iterations && !failed; it++) {
        pov_assign(sigma, nblocks, seed, sample, it, threads, key);
        uint64_t off = pb_pov_offset(n, p->block, seed, sample, it);
        if (threads <= 1 || nv < 2) {
            uint32_t *pos = malloc(2 * most * sizeof *pos); /* places, then perm */
            char *buf = malloc(most * item_bytes);
            if (pos && buf) pov_vblocks(a, n, item_bytes, p, off, sigma, nblocks, 0, nv, seed, sample, it, pos, buf);
            else failed = 1;
            free(pos), free(buf);
            continue;
        }
#pragma omp parallel num_threads(threads) reduction(| : failed)
        {
            uint32_t *pos = malloc(2 * most * sizeof *pos); /* places, then perm */
            char *buf = malloc(most * item_bytes);
            failed = !pos || !buf;
            /* Virtual blocks are alike in size: static chunks of them. */
#pragma omp for schedule(static)
            for (uint32_t v = 0; v < nv; v++)
                if (!failed) pov_vblocks(a, n, item_bytes, p, off, sigma, nblocks, v, v + 1, seed, sample, it, pos, buf);
            free(pos), free(buf);
        }
    }
    free(key);
    return failed ? pb_err_set(err, "pov: out of memory for a virtual block's buffers") : 0;
}
