/* The data-loader shuffle models (algorithms/shuffle/loader/loader_model.h)
 * against known answers at tiny n: every sequence of random choices the
 * model can make is enumerated (each weighted by the product of 1/range),
 * which gives its exact output distribution, and that is compared with a
 * second reading of the library's algorithm written here: for a given
 * output order, the buffer's contents are replayed step by step and the
 * order's probability is the product of 1/(items held) over the picks (0
 * when an item is emitted that is not held). Then the theory: no item
 * comes out more than B - 1 places early (and some does, that early),
 * item 0's position is geometric while the buffer is full, WebDataset with
 * initial = B is tf.data's rule, py1s keeps each shard contiguous, py1e's
 * one crossing at n = 4 has the probability worked out in
 * docs/loader-shuffles.md. The modules' family contract is checked with
 * every module's in tests/test_modules.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/loader/loader_model.h"
#include "stats/lehmer.h"
#include "tests/test.h"

#define MAXN 7
#define MAXPERMS 5040 /* 7! */
#define MAXDRAWS 64

/* The enumeration: a script of choices replayed, then extended by 0s; the
 * odometer advances the last choice that has room. */
typedef struct enumerator {
    uint32_t choice[MAXDRAWS], range[MAXDRAWS];
    int depth, len, bad;
} enumerator;

static uint32_t enum_below(void *ctx, uint32_t range)
{
    enumerator *e = ctx;
    if (e->depth >= MAXDRAWS) {
        e->bad = 1;
        return 0;
    }
    if (e->depth < e->len) {
        if (e->range[e->depth] != range) e->bad = 1; /* the same prefix must ask the same question */
        return e->choice[e->depth++];
    }
    e->choice[e->depth] = 0;
    e->range[e->depth] = range;
    e->len = ++e->depth;
    return 0;
}

static double enum_unit(void *ctx)
{
    ((enumerator *)ctx)->bad = 1; /* the enumerated models draw no reals */
    return 0;
}

typedef void (*model_fn)(uint32_t n, const void *params, uint32_t *order, void *scratch, pb_ld_draws *d);

/* dist[rank] = P(order), every order of the model at n. -1 if the model
 * asked different questions after one prefix or emitted a non-permutation. */
static int enumerate(model_fn f, const void *params, uint32_t n, double *dist)
{
    static unsigned char scratch[1 << 16];
    enumerator e = {0};
    pb_ld_draws d = {enum_below, enum_unit, &e};
    uint64_t perms = pb_factorial(n);
    memset(dist, 0, perms * sizeof *dist);
    for (;;) {
        uint32_t order[MAXN];
        e.depth = 0;
        f(n, params, order, scratch, &d);
        if (e.bad || e.depth != e.len) return -1;
        unsigned seen = 0;
        for (uint32_t i = 0; i < n; i++) seen |= 1u << order[i];
        if (seen != (1u << n) - 1) return -1;
        double p = 1;
        for (int k = 0; k < e.depth; k++) p /= e.range[k];
        dist[pb_lehmer_rank(order, n)] += p;
        while (e.len > 0 && e.choice[e.len - 1] + 1 == e.range[e.len - 1]) e.len--;
        if (e.len == 0) return 0;
        e.choice[e.len - 1]++;
    }
}

static void buffer_model(uint32_t n, const void *params, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    pb_ld_buffer_shuffle(NULL, n, params, order, scratch, d);
}

typedef struct shard_params {
    uint32_t shard;
    pb_ld_buffer b;
} shard_params;

static void shard_model(uint32_t n, const void *params, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    const shard_params *s = params;
    pb_ld_shard_shuffle(n, s->shard, &s->b, order, scratch, d);
}

static void mosaic_model(uint32_t n, const void *params, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    pb_ld_mosaic_shuffle(n, params, order, scratch, d);
}

/* The reference: P(the buffer emits `order` from `stream`), replaying the
 * library's loop with each pick forced to the order's next item. */
static double replay(const uint32_t *stream, uint32_t n, const pb_ld_buffer *b, const uint32_t *order)
{
    uint32_t held[MAXN + 1], h = 0, read = 0, t = 0;
    double p = 1;
#define EMIT()                                                                                     \
    do {                                                                                           \
        uint32_t k = 0;                                                                            \
        while (k < h && held[k] != order[t]) k++;                                                  \
        if (k == h) return 0;                                                                      \
        p /= h;                                                                                    \
        held[k] = held[--h];                                                                       \
        t++;                                                                                       \
    } while (0)
    if (b->fill == PB_LD_FILL_TFDATA) {
        /* torchdata: for x in data: if len(buffer) == B: emit one, x takes its place; else append. */
        for (; read < n; read++) {
            if (h == b->size) EMIT();
            held[h++] = stream[read];
        }
    } else {
        /* WebDataset: for s in data: append s; if len < B: append next; if len >= initial: emit. */
        uint32_t initial = b->initial < b->size ? b->initial : b->size;
        while (read < n) {
            held[h++] = stream[read++];
            if (h < b->size && read < n) held[h++] = stream[read++];
            if (h >= initial) EMIT();
        }
    }
    while (h) EMIT();
#undef EMIT
    return p;
}

static const uint32_t identity[MAXN] = {0, 1, 2, 3, 4, 5, 6};

static int same(const double *a, const double *b, uint64_t perms)
{
    for (uint64_t r = 0; r < perms; r++)
        if (fabs(a[r] - b[r]) > 1e-12) {
            fprintf(stderr, "rank %llu: %.15g, expected %.15g\n", (unsigned long long)r, a[r], b[r]);
            return 0;
        }
    return 1;
}

static int buffer_against_replay(uint32_t n, const pb_ld_buffer *b)
{
    static double got[MAXPERMS], want[MAXPERMS];
    uint64_t perms = pb_factorial(n);
    if (enumerate(buffer_model, b, n, got)) return 0;
    for (uint64_t r = 0; r < perms; r++) {
        uint32_t order[MAXN];
        pb_lehmer_unrank(r, n, order);
        want[r] = replay(identity, n, b, order);
    }
    if (!same(got, want, perms)) {
        fprintf(stderr, "n = %u, B = %u, fill %d, initial %u\n", n, b->size, (int)b->fill, b->initial);
        return 0;
    }
    return 1;
}

static double prob_of(const double *dist, uint32_t n, const char *order)
{
    uint32_t o[MAXN];
    for (uint32_t i = 0; i < n; i++) o[i] = (uint32_t)(order[i] - '0');
    return dist[pb_lehmer_rank(o, n)];
}

/* Worked by hand (docs/loader-shuffles.md): n = 3, B = 2 under tf.data's
 * rule emits 0 or 1 first, each then followed by either order of the other
 * two: four orders of 1/4, and 2 is never first. */
TEST_IMPL(loader_buffer_known_answer)
{
    double dist[MAXPERMS];
    pb_ld_buffer b = {2, PB_LD_FILL_TFDATA, 0};
    ASSERT(enumerate(buffer_model, &b, 3, dist) == 0);
    const char *quarter[] = {"012", "021", "102", "120"};
    for (int k = 0; k < 4; k++) ASSERT(fabs(prob_of(dist, 3, quarter[k]) - 0.25) < 1e-15);
    ASSERT(prob_of(dist, 3, "201") == 0 && prob_of(dist, 3, "210") == 0);
    /* n = 4, B = 3: tf.data may emit 2 first (1/3), WebDataset with
     * initial = 1 never (its buffer holds {0, 1} at the first pick). */
    ASSERT(enumerate(buffer_model, &b, 3, dist) == 0);
    b = (pb_ld_buffer){3, PB_LD_FILL_TFDATA, 0};
    ASSERT(enumerate(buffer_model, &b, 4, dist) == 0);
    ASSERT(fabs(prob_of(dist, 4, "2013") - 1.0 / 18) < 1e-15);
    ASSERT(prob_of(dist, 4, "3012") == 0);
    b = (pb_ld_buffer){3, PB_LD_FILL_WEBDATASET, 1};
    ASSERT(enumerate(buffer_model, &b, 4, dist) == 0);
    ASSERT(prob_of(dist, 4, "2013") == 0);
    ASSERT(fabs(prob_of(dist, 4, "0213") - 1.0 / 12) < 1e-15);
    return 0;
}

TEST_IMPL(loader_buffer_exhaustive)
{
    for (uint32_t n = 1; n <= MAXN; n++)
        for (uint32_t B = 1; B <= n + 1; B++) {
            pb_ld_buffer b = {B, PB_LD_FILL_TFDATA, 0};
            ASSERT(buffer_against_replay(n, &b));
            for (uint32_t initial = 0; initial <= B + 1; initial++) {
                b = (pb_ld_buffer){B, PB_LD_FILL_WEBDATASET, initial};
                ASSERT(buffer_against_replay(n, &b));
            }
        }
    return 0;
}

/* WebDataset's rule with initial = B holds B items at every pick, as
 * tf.data's does: the same distribution. With B = n both are uniform. */
TEST_IMPL(loader_buffer_rules_meet)
{
    static double tf[MAXPERMS], wds[MAXPERMS];
    for (uint32_t n = 2; n <= 6; n++)
        for (uint32_t B = 1; B <= n; B++) {
            pb_ld_buffer a = {B, PB_LD_FILL_TFDATA, 0}, w = {B, PB_LD_FILL_WEBDATASET, B};
            ASSERT(enumerate(buffer_model, &a, n, tf) == 0);
            ASSERT(enumerate(buffer_model, &w, n, wds) == 0);
            ASSERT(same(tf, wds, pb_factorial(n)));
            if (B == n)
                for (uint64_t r = 0; r < pb_factorial(n); r++) ASSERT(fabs(tf[r] - 1.0 / pb_factorial(n)) < 1e-12);
        }
    return 0;
}

/* Item 0 stays in a full buffer with probability 1 - 1/B a pick, so under
 * tf.data's rule P(pos 0 = t) = (1/B) (1 - 1/B)^t while the stream lasts
 * (t < n - B + 1 picks are made with B held). */
TEST_IMPL(loader_buffer_geometric)
{
    static double dist[MAXPERMS];
    const uint32_t n = 7, B = 3;
    pb_ld_buffer b = {B, PB_LD_FILL_TFDATA, 0};
    ASSERT(enumerate(buffer_model, &b, n, dist) == 0);
    double at[MAXN] = {0};
    for (uint64_t r = 0; r < pb_factorial(n); r++) {
        uint32_t o[MAXN];
        pb_lehmer_unrank(r, n, o);
        for (uint32_t t = 0; t < n; t++)
            if (o[t] == 0) at[t] += dist[r];
    }
    for (uint32_t t = 0; t < n - B + 1; t++) ASSERT(fabs(at[t] - pow(1.0 - 1.0 / B, t) / B) < 1e-12);
    return 0;
}

/* A buffer holds at most B items at a pick, so the item emitted t-th was
 * read among the first t + B: item i comes out at position >= i - (B - 1),
 * for both rules, and some item reaches the bound. */
TEST_IMPL(loader_buffer_early_bound)
{
    const uint32_t n = 2000;
    uint32_t *order = malloc(n * sizeof *order), *scratch = malloc(4 * (n + 2) * sizeof *scratch);
    ASSERT(order && scratch);
    const uint32_t sizes[] = {1, 2, 17, 100, 1999, 2000, 5000};
    for (int fill = 0; fill < 2; fill++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            uint32_t B = sizes[s];
            pb_ld_buffer b = {B, (pb_ld_fill)fill, fill ? 100 : 0};
            long long earliest = 0;
            for (uint64_t sample = 0; sample < 40; sample++) {
                pb_rng r;
                pb_ld_draws d;
                pb_ld_philox_draws(&r, 42, sample, &d);
                pb_ld_buffer_shuffle(NULL, n, &b, order, scratch, &d);
                for (uint32_t t = 0; t < n; t++) {
                    long long early = (long long)t - order[t];
                    ASSERT(early >= -(long long)(B - 1));
                    if (early < earliest) earliest = early;
                }
            }
            /* Reached: at B <= n some item leaves B - 1 early in 40 samples
             * (the last item read into a full buffer is picked at once with
             * probability 1/B at each of n - B + 1 reads). */
            if (B <= 100) ASSERT(earliest == -(long long)(B - 1));
        }
    free(order);
    free(scratch);
    return 0;
}

/* Shards in uniform order, then the buffer: the mixture over the shard
 * orders of the replay of each stream. */
TEST_IMPL(loader_shard_exhaustive)
{
    static double got[MAXPERMS], want[MAXPERMS];
    for (uint32_t n = 1; n <= 6; n++)
        for (uint32_t L = 1; L <= n; L++)
            for (uint32_t B = 1; B <= 3; B++)
                for (int fill = 0; fill < 2; fill++) {
                    shard_params sp = {L, {B, (pb_ld_fill)fill, 1}};
                    ASSERT(enumerate(shard_model, &sp, n, got) == 0);
                    uint32_t shards = (n + L - 1) / L;
                    uint64_t perms = pb_factorial(n), sperms = pb_factorial(shards);
                    memset(want, 0, perms * sizeof *want);
                    for (uint64_t sr = 0; sr < sperms; sr++) {
                        uint32_t so[MAXN], stream[MAXN], t = 0;
                        pb_lehmer_unrank(sr, shards, so);
                        for (uint32_t k = 0; k < shards; k++)
                            for (uint32_t i = so[k] * L; i < so[k] * L + L && i < n; i++) stream[t++] = i;
                        for (uint64_t r = 0; r < perms; r++) {
                            uint32_t order[MAXN];
                            pb_lehmer_unrank(r, n, order);
                            want[r] += replay(stream, n, &sp.b, order) / (double)sperms;
                        }
                    }
                    if (!same(got, want, perms)) {
                        fprintf(stderr, "n = %u, L = %u, B = %u, fill %d\n", n, L, B, fill);
                        return 1;
                    }
                }
    return 0;
}

/* py1s with one canonical node: the shards in uniform order, each shuffled
 * in place: P(order) = 1/S! x prod 1/len! over the shard orders whose
 * segments the order permutes. */
TEST_IMPL(loader_py1s_exhaustive)
{
    static double got[MAXPERMS], want[MAXPERMS];
    for (uint32_t n = 1; n <= 6; n++)
        for (uint32_t L = 1; L <= n; L++) {
            pb_ld_mosaic m = {PB_LD_PY1S, L, 1, 4};
            ASSERT(enumerate(mosaic_model, &m, n, got) == 0);
            uint32_t shards = (n + L - 1) / L;
            uint64_t perms = pb_factorial(n), sperms = pb_factorial(shards);
            memset(want, 0, perms * sizeof *want);
            for (uint64_t sr = 0; sr < sperms; sr++) {
                uint32_t so[MAXN];
                pb_lehmer_unrank(sr, shards, so);
                for (uint64_t r = 0; r < perms; r++) {
                    uint32_t order[MAXN], t = 0;
                    pb_lehmer_unrank(r, n, order);
                    double p = 1.0 / (double)sperms;
                    for (uint32_t k = 0; k < shards && p > 0; k++) {
                        uint32_t lo = so[k] * L, hi = lo + L < n ? lo + L : n;
                        for (uint32_t i = lo; i < hi; i++, t++)
                            if (order[t] < lo || order[t] >= hi) p = 0;
                        p /= (double)pb_factorial(hi - lo);
                    }
                    want[r] += p;
                }
            }
            if (!same(got, want, perms)) {
                fprintf(stderr, "py1s n = %u, L = %u\n", n, L);
                return 1;
            }
        }
    return 0;
}

/* py1s over C canonical nodes: node p holds the items of positions
 * [n p / C, n (p + 1) / C) of the shard order, so every position block of a
 * node is filled by whole shard pieces, and each shard's items inside one
 * node stay contiguous. */
TEST_IMPL(loader_py1s_nodes)
{
    const uint32_t n = 1000;
    uint32_t *order = malloc(n * sizeof *order);
    pb_ld_mosaic m = {PB_LD_PY1S, 37, 7, 1};
    void *scratch = malloc(pb_ld_mosaic_scratch_bytes(n, &m));
    ASSERT(order && scratch);
    for (uint64_t sample = 0; sample < 20; sample++) {
        pb_rng r;
        pb_ld_draws d;
        pb_ld_philox_draws(&r, 7, sample, &d);
        pb_ld_mosaic_shuffle(n, &m, order, scratch, &d);
        for (uint32_t p = 0; p < m.nodes; p++) {
            uint32_t lo = n * p / m.nodes, hi = n * (p + 1) / m.nodes;
            for (uint32_t t = lo + 1; t < hi; t++) {
                /* a change of shard inside a node is never back to one seen before in it */
                uint32_t s = order[t] / m.shard;
                if (s == order[t - 1] / m.shard) continue;
                for (uint32_t u = lo; u + 1 < t; u++) ASSERT(order[u] / m.shard != s);
            }
        }
    }
    free(order);
    free(scratch);
    return 0;
}

/* py1e at n = 4, L = 2, one node, block 4: the two shards in uniform order
 * and each shuffled (8 equally likely outcomes), then a block size in
 * {3, 4} a shard, half-widths 1/2 or 1; only the first shard's second item
 * and the second shard's first can cross, with probability 1/2 when both
 * half-widths are 1, 1/4 when one is, 0 when neither: 1/4 in all. Each of
 * the 8 orders has 3/32, its crossed twin 1/32; 10^6 samples are held to
 * 5 standard deviations and the other 8 orders to 0. */
TEST_IMPL(loader_py1e_known_answer)
{
    const uint32_t n = 4;
    const uint64_t samples = PB_TEST_SANITIZED ? 200000 : 1000000;
    pb_ld_mosaic m = {PB_LD_PY1E, 2, 1, 4};
    unsigned char scratch[4096];
    ASSERT(pb_ld_mosaic_scratch_bytes(n, &m) <= sizeof scratch);
    uint64_t count[24] = {0};
    for (uint64_t s = 0; s < samples; s++) {
        pb_rng r;
        pb_ld_draws d;
        uint32_t order[4];
        pb_ld_philox_draws(&r, 2026, s, &d);
        pb_ld_mosaic_shuffle(n, &m, order, scratch, &d);
        count[pb_lehmer_rank(order, n)]++;
    }
    double want[24] = {0};
    const char *shards[2][2] = {{"01", "10"}, {"23", "32"}};
    for (int first = 0; first < 2; first++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                uint32_t o[4];
                const char *x = shards[first][a], *y = shards[1 - first][b];
                o[0] = (uint32_t)(x[0] - '0'), o[1] = (uint32_t)(x[1] - '0');
                o[2] = (uint32_t)(y[0] - '0'), o[3] = (uint32_t)(y[1] - '0');
                want[pb_lehmer_rank(o, n)] += 3.0 / 32;
                uint32_t c = o[1];
                o[1] = o[2], o[2] = c;
                want[pb_lehmer_rank(o, n)] += 1.0 / 32;
            }
    for (int k = 0; k < 24; k++) {
        double e = want[k] * (double)samples, sd = sqrt(e * (1 - want[k]));
        if (want[k] == 0) ASSERT(count[k] == 0);
        else if (fabs((double)count[k] - e) > 5 * sd) {
            fprintf(stderr, "rank %d: %llu, expected %.0f +- %.0f\n", k, (unsigned long long)count[k], e, sd);
            return 1;
        }
    }
    return 0;
}

/* py1e moves an item only inside its shard's window: with block B every
 * shift is at most c = (1.25 B - 1 - L) / 2 either way, and an item's rank
 * after the sort is within c of its shifted position (every other item is
 * shifted by at most c too), so a shard's L items end within L - 1 + 4c
 * positions. With 1.25 B - 1 <= L every cutoff is 0 and each shard stays
 * whole, in one run. */
TEST_IMPL(loader_py1e_bounds)
{
    const uint32_t n = 3000, L = 100;
    uint32_t *order = malloc(n * sizeof *order), *where = malloc(n * sizeof *where);
    pb_ld_mosaic m = {PB_LD_PY1E, L, 1, 400};
    void *scratch = malloc(pb_ld_mosaic_scratch_bytes(n, &m));
    ASSERT(order && where && scratch);
    for (int small = 0; small < 2; small++) {
        m.block = small ? 80 : 400;
        double c = (5.0 * m.block / 4 - 1 - L) / 2;
        for (uint64_t sample = 0; sample < 10; sample++) {
            pb_rng r;
            pb_ld_draws d;
            pb_ld_philox_draws(&r, 11, sample, &d);
            pb_ld_mosaic_shuffle(n, &m, order, scratch, &d);
            for (uint32_t t = 0; t < n; t++) where[order[t]] = t;
            for (uint32_t s = 0; s < n / L; s++) {
                uint32_t lo = UINT32_MAX, hi = 0;
                for (uint32_t i = s * L; i < s * L + L; i++) {
                    if (where[i] < lo) lo = where[i];
                    if (where[i] > hi) hi = where[i];
                }
                if (small) ASSERT(hi - lo == L - 1);
                else ASSERT(hi - lo <= L - 1 + 4 * c);
            }
        }
    }
    free(order);
    free(where);
    free(scratch);
    return 0;
}
