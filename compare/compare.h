/* `permbench compare BASE NEW`: two runs' results.json, row by row. Rows are
 * matched by (label, n, item_bytes, axis_value); each matched pair with
 * status ok on both sides gets both medians, the ratio NEW/BASE and a
 * verdict from the Mann-Whitney U test of their raw samples
 * (stats/mann_whitney.h) together with a minimum effect size:
 *
 *   SLOWER  the U test rejects at alpha and NEW/BASE > 1 + threshold
 *   FASTER  the U test rejects at alpha and NEW/BASE < 1 / (1 + threshold)
 *   SAME    otherwise
 *
 * (FASTER's bound is the reciprocal of SLOWER's, so swapping BASE and NEW
 * swaps the two verdicts exactly.) The U test alone would call a 0.1% shift
 * real given a thousand quiet samples; the threshold alone would call
 * noise real. Where the two runs are on different devices (GPU name for GPU
 * rows; CPU model or logical CPUs for CPU rows), each row's share of its
 * ceiling (pct_of_copy) is compared too: near 1 the row moved with the
 * memory system, well below 1 it gained less than the copy did.
 *
 * A row that cannot be trusted on either side gets UNSTABLE instead of a
 * verdict: noisy (its median's 95% interval wider than its run's
 * max_noise), multimodal (its samples in two clusters) or busy (measured
 * while the machine was busy). Noisy and multimodal are judged again from
 * the samples (stats/median_ci.h, stats/multimodal.h), so runs written
 * before the rows said so are judged alike; a row's own flags count too.
 * --fail-on-slower passes over UNSTABLE rows unless `strict`, which fails
 * an UNSTABLE row whose median ratio exceeds the bound. */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

typedef enum pb_cmp_verdict { PB_CMP_SAME, PB_CMP_FASTER, PB_CMP_SLOWER, PB_CMP_UNSTABLE } pb_cmp_verdict;
const char *pb_cmp_verdict_name(pb_cmp_verdict v);

typedef struct pb_compare_opts {
    double alpha;         /* the U test's level, (0, 1) */
    double threshold_pct; /* minimum effect size, percent of BASE's median */
    double fail_pct;      /* --fail-on-slower; NAN when not given */
    bool strict;          /* --strict: UNSTABLE rows count against --fail-on-slower */
} pb_compare_opts;

/* What each run says about where it ran; strings point into the loaded
 * document ("" when absent). */
typedef struct pb_cmp_prov {
    const char *gpu, *driver, *commit, *dirty, *config_name, *config_hash, *cpu, *family, *date;
    long long sm_clock_mhz, mem_clock_mhz, logical_cpus; /* -1 when absent */
    long long schema_version;
} pb_cmp_prov;

/* One run: the path of its results.json and the document, kept while the
 * comparison lives. */
typedef struct pb_cmp_side {
    char path[1100];
    struct json_t *root;
    pb_cmp_prov prov;
} pb_cmp_side;

/* A row's identity. */
typedef struct pb_cmp_key {
    const char *label, *axis_value, *module, *device;
    uint64_t n;
    unsigned item_bytes;
} pb_cmp_key;

typedef struct pb_cmp_row {
    pb_cmp_key key;
    size_t base_samples, new_samples;
    double base_ms, new_ms; /* medians of samples_ms */
    double ratio;           /* new_ms / base_ms */
    double u, z, p_value;
    pb_cmp_verdict verdict;
    bool other_device;      /* the two runs measured this row on different devices */
    double base_share, new_share, share_ratio; /* pct_of_copy, NAN when absent */
    /* Why the row cannot be trusted (UNSTABLE), per side: its median
     * interval's half-width (percent of the median), noisy, multimodal,
     * busy; and the reasons as one text ("" when trusted). */
    double base_ci_pct, new_ci_pct;
    bool base_noisy, new_noisy, base_multimodal, new_multimodal, base_busy, new_busy;
    char unstable[160];
    /* A side measured over several seeds (its row's seed_samples): how
     * many, and the spread of their medians, (max - min) / median in
     * percent (1 and NAN for a row of one seed). Shown, never judged: the
     * spread is the inputs', not the measurement's. */
    int base_seeds, new_seeds;
    double base_seed_spread_pct, new_seed_spread_pct;
    bool seed_spread_wide; /* a side's spread is above its run's max_noise */
} pb_cmp_row;

/* A row not compared: on one side only, or not ok on a side. */
typedef struct pb_cmp_skip {
    pb_cmp_key key;
    const char *base_status, *new_status; /* NULL: no such row on that side */
} pb_cmp_skip;

typedef struct pb_compare {
    pb_compare_opts opts;
    pb_cmp_side base, new_;
    pb_cmp_row *rows;
    size_t nrows;
    pb_cmp_skip *skips; /* base-only, then new-only, then not ok */
    size_t nskips;
    size_t same, faster, slower, slower_beyond_fail, unstable;
    size_t seed_spread_wide; /* rows with a seed spread above max_noise (shown, not judged) */
    bool gpu_differs, cpu_differs; /* between the two runs' provenance */
    struct pb_cmp_machine_line *machine; /* the runs' machine state (compare_machine.c) */
    size_t nmachine;
} pb_compare;

/* The provenance both runs carry, as lines of (what, BASE's, NEW's): GPU,
 * driver, SM and memory clocks, host CPU, commit (dirty marked), config
 * name and hash, date, schema. Returns the number of lines. */
#define PB_CMP_PROV_LINES 9
typedef struct pb_cmp_prov_line {
    const char *what;
    char base[160], new_[160];
} pb_cmp_prov_line;
size_t pb_compare_prov_lines(const pb_compare *c, pb_cmp_prov_line lines[PB_CMP_PROV_LINES]);

/* The machine state each run recorded (its results.json's "machine"
 * object, at the top or under provenance: load, busy, GPU clocks and
 * throttle reasons, before and after), one line per value either run has,
 * named by its path ("machine.after.load_avg_1m", "machine.busy"); "-"
 * where a run lacks it. At most PB_CMP_MACHINE_MAX lines. */
#define PB_CMP_MACHINE_MAX 48
typedef struct pb_cmp_machine_line {
    char what[96];
    char base[160], new_[160];
} pb_cmp_machine_line;
int pb_compare_machine(pb_compare *c, pb_err *err);

/* The results.json of `arg`: a result directory holding one (or a packed
 * reference run's results.json.gz), or the file itself, plain or gzip.
 * Errors name the path and say what is wrong. */
int pb_compare_resolve(const char *arg, char *path, size_t len, pb_err *err);

/* Loads both runs and compares them. Refuses (with one message) unreadable
 * or foreign files, runs of different families and runs with no row in
 * common. */
int pb_compare_runs(const char *base, const char *new_, const pb_compare_opts *opts, pb_compare *c,
                    pb_err *err);
void pb_compare_free(pb_compare *c);

/* The report on `out`: provenance (differences marked), the rows, the rows
 * not compared, a summary naming the test. Markdown when `markdown`. */
void pb_compare_print(const pb_compare *c, bool markdown, FILE *out);

/* DIR/compare.json (schema_version 1), DIR/compare.csv and DIR/compare.md
 * (the Markdown report), each written whole or not at all; then, by the
 * gnuplot found, the figure DIR/compare.png and .svg. */
int pb_compare_write(const pb_compare *c, const char *dir, int argc, char **argv, pb_err *err);
/* The figure's gnuplot variables (what pb_compare_plot hands gnuplot with
 * plots/compare.gp) into vars[len]; every string single-quoted and free of
 * quotes and control characters. */
int pb_compare_plot_vars(const pb_compare *c, const char *dir, char *vars, size_t len, pb_err *err);
int pb_compare_plot(const pb_compare *c, const char *dir, const char *gnuplot, pb_err *err);

#endif
