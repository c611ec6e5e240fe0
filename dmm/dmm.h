/* A simulator of the Discrete Memory Machine (Nakano; Afshani and Sitchinava,
 * "Sorting and Permuting without Bank Conflicts on GPUs"): w processors and
 * w memory banks, word a in bank a mod w. Programs are sequences of parallel
 * steps in which each processor reads or writes at most one word; the
 * simulator counts the steps and the bank conflicts a GPU would serialise.
 *
 * The matrix view: an array of w x m words is m consecutive lines of w words
 * (line c holds words c*w .. c*w + w - 1), so its row r is bank r and its
 * column c is line c. Arrays are line ranges of one memory.
 *
 * Cost model (that of a warp's shared-memory instruction, which is what the
 * GPU tile kernels' counts are compared with): a step is all loads or all
 * stores; a bank serves one word per cycle, several processors reading the
 * same word are served together (broadcast), so a step costs as many cycles
 * as the largest number of distinct words any one bank is asked for. Its
 * conflicts are that number minus one: Nsight Compute's
 * l1tex__data_bank_conflicts counters count the same extra wavefronts. The
 * paper's conflict avoidance condition (CAC) is zero conflicts in every
 * step. Two stores to one word in a step, or a processor issuing twice in a
 * step, are program errors: they are counted as races, and tests require
 * none. */
#ifndef PB_DMM_H
#define PB_DMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_dmm_kind { PB_DMM_LD = 1, PB_DMM_ST = 2 } pb_dmm_kind;

typedef struct pb_dmm_stats {
    uint64_t ld_steps, st_steps;         /* steps in which some processor loaded / stored */
    uint64_t ld_conflicts, st_conflicts; /* extra cycles: sum over steps of (ways - 1) */
    uint64_t accesses;                   /* words loaded or stored */
    uint64_t races;                      /* program errors, see above */
} pb_dmm_stats;

static inline uint64_t pb_dmm_steps(const pb_dmm_stats *s) { return s->ld_steps + s->st_steps; }
static inline uint64_t pb_dmm_conflicts(const pb_dmm_stats *s)
{
    return s->ld_conflicts + s->st_conflicts;
}
/* The serialised time: every step's cycles. */
static inline uint64_t pb_dmm_cycles(const pb_dmm_stats *s)
{
    return pb_dmm_steps(s) + pb_dmm_conflicts(s);
}

typedef struct pb_dmm {
    unsigned w;     /* banks = processors */
    size_t lines;   /* words per bank */
    uint64_t *mem;  /* lines * w words */
    pb_dmm_stats st;
    /* The step being issued. */
    pb_dmm_kind kind;
    unsigned nact;
    unsigned *act;     /* processors that issued, in order */
    size_t *addr;      /* per processor */
    uint64_t *val;     /* per processor: the word stored, or the word loaded */
    unsigned char *on; /* per processor: issued in this step */
    unsigned *count;   /* per bank: accesses in this step */
    size_t *sorted;    /* scratch for the distinct-word count */
} pb_dmm;

/* A machine of w banks (w >= 1) and `lines` words in each, all zero.
 * Returns 0, or -1 when out of memory. */
int pb_dmm_init(pb_dmm *d, unsigned w, size_t lines);
void pb_dmm_free(pb_dmm *d);
void pb_dmm_reset_stats(pb_dmm *d);

/* One step: begin, then at most one ld or st per processor, then end. A
 * load's word is pb_dmm_got(d, p) after end (and until the next step). */
void pb_dmm_begin(pb_dmm *d, pb_dmm_kind kind);
void pb_dmm_ld(pb_dmm *d, unsigned p, size_t addr);
void pb_dmm_st(pb_dmm *d, unsigned p, size_t addr, uint64_t v);
void pb_dmm_end(pb_dmm *d);
static inline uint64_t pb_dmm_got(const pb_dmm *d, unsigned p) { return d->val[p]; }

/* The address of (row r, column c) of the array starting at line `base`. */
static inline size_t pb_dmm_at(const pb_dmm *d, size_t base, unsigned r, size_t c)
{
    return (base + c) * d->w + r;
}
/* Uncounted access, for setting inputs up and reading results. */
static inline uint64_t *pb_dmm_word(pb_dmm *d, size_t base, unsigned r, size_t c)
{
    return &d->mem[pb_dmm_at(d, base, r, c)];
}

#ifdef __cplusplus
}
#endif

#endif
