/* A sweep configuration (`permbench run`): one [sweep] section and one
 * section per module instance, read by the one INI reader (config/ini.h)
 * into instances (registry/instance.h).
 *
 *   [sweep]
 *   family = shuffle
 *   sizes = 2^8+1 .. 2^29+1 *8
 *   item = u64
 *
 *   [bijective2-lcg]        ; the section name is the instance's label
 *   module = bijective2     ; defaults to the label
 *   bijection = lcg         ; any parameter the module accepts
 *
 *   [bms]
 *   buckets = 2, 4, 8, 32   ; a list: one instance per value, labelled
 *                           ; bms/buckets=2, ...
 *
 * Every error names the file and line. */
#ifndef PB_SWEEP_CONFIG_H
#define PB_SWEEP_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "config/ini.h"
#include "config/sizes.h"
#include "registry/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MAX_PLOTS 4
#define PB_MAX_ITEMS 8

typedef enum pb_sweep_modules {
    PB_SWEEP_MODULES_NONE,
    PB_SWEEP_MODULES_ALL,
    PB_SWEEP_MODULES_CPU,
    PB_SWEEP_MODULES_GPU
} pb_sweep_modules;

typedef struct pb_config {
    char path[1024];  /* as given, or "(built-in) configs/NAME.ini" */
    char name[128];   /* results/<name>/... */
    char *text;       /* the file's bytes, kept for the hash and the JSON */
    uint64_t hash;    /* FNV-1a 64 of text */
    char title[160];

    const pb_family *family;
    uint64_t sizes[PB_MAX_SIZES];
    size_t nsizes;
    unsigned items[PB_MAX_ITEMS]; /* item widths in bytes, as named by `item` */
    size_t nitems;
    uint64_t seed;
    /* Each point measured over this many seeds (bench/row_seeds.h), unless
     * its instance says (pb_instance.seeds): the row reports the median of
     * the per-seed medians and their spread. */
    int seeds;
    int warmup;
    int min_samples, max_samples;
    double min_time, timeout;  /* seconds per problem point */
    double max_noise;  /* sampling stops once the relative standard deviation is below this (0.005 = 0.5%) */
    bool fail_noisy;   /* a row that stopped noisier than max_noise makes the exit status 1 */
    int streams;       /* random streams a point's samples cycle through */
    bool flush_cache;
    /* GPU samples timed with the stream held by a blocking kernel (NVBench's
     * cold measurement); no for profilers, which serialise launches and so
     * would wait for the hold to give up and see each sample launched twice. */
    bool hold;
    bool skip_unavailable;
    bool ceilings_auto;
    pb_sweep_modules modules; /* add every module of the family (of a device) */
    char plots[PB_MAX_PLOTS][32];
    size_t nplots;
    /* Label or series every row's speedup_vs_ref is measured against ("" =
     * none): the row of the same n and item width, and of the same axis
     * value when the reference has that axis too. */
    char reference[PB_LABEL_MAX];

    pb_instances inst;
} pb_config;

/* Parses and validates; on failure nothing is allocated and err holds one
 * line naming the file, the line and the problem. */
int pb_config_load_file(const char *path, pb_config *cfg, pb_err *err);
/* Same from text already in memory; `path` is only used in messages. */
int pb_config_load_text(const char *path, const char *name, const char *text, pb_config *cfg,
                        pb_err *err);
void pb_config_free(pb_config *cfg);

/* The seeds a point of `in` is measured over: its section's, else the sweep's. */
int pb_config_seeds(const pb_config *cfg, const pb_instance *in);

/* Adds the ceilings the sweep's family is bounded by (core/family.h) on
 * each device its instances run on, unless present, ahead of the others:
 * the CPU's first, copy before gather. */
void pb_config_add_ceilings(pb_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
