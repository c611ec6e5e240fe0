/* A sweep configuration: one [sweep] section and one section per module
 * instance, parsed with inih.
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
 *   buckets = 2, 4, 8, 32   ; a list: one instance per value (an axis, as in
 *                           ; NVBench), labelled bms/buckets=2, ...; one
 *                           ; list-valued parameter per section
 *
 * Every error names the file and line. */
#ifndef PB_CONFIG_H
#define PB_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/module.h"
#include "harness/sizes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MAX_INSTANCES 256 /* after list-valued parameters are expanded */
#define PB_LABEL_MAX 48
#define PB_MAX_PLOTS 4

typedef struct pb_instance {
    char label[PB_LABEL_MAX];   /* unique: <series>/<axis>=<value> when expanded */
    char series[PB_LABEL_MAX];  /* the section name: the line a figure draws */
    char axis[32];              /* the list-valued parameter, "" if none */
    char axis_value[32];        /* its value for this instance, as written */
    const pb_module *mod;
    pb_params params;
    unsigned given;  /* bit i: parameter i was set in the config */
    int line;        /* line of its section header; 0 if added by the harness */
    bool automatic;  /* a ceiling the harness added (ceilings = auto) */
} pb_instance;

typedef struct pb_config {
    char path[1024];  /* as given, or "(embedded) configs/NAME.ini" */
    char name[128];   /* results/<name>/... */
    char *text;       /* the file's bytes, kept for the hash and the JSON */
    uint64_t hash;    /* FNV-1a 64 of text */
    char title[160];

    pb_family family;
    uint64_t sizes[PB_MAX_SIZES];
    size_t nsizes;
    unsigned items[2];  /* item sizes in bytes */
    size_t nitems;
    uint64_t seed;
    int warmup;
    int min_samples, max_samples;
    double min_time, timeout;  /* seconds per problem point */
    bool flush_cache;
    bool skip_unavailable;
    bool ceilings_auto;
    char plots[PB_MAX_PLOTS][32];
    size_t nplots;
    /* Label or series every row's speedup_vs_ref is measured against ("" =
     * none): the row of the same n and item width, and of the same axis
     * value when the reference has that axis too. */
    char reference[PB_LABEL_MAX];

    pb_instance inst[PB_MAX_INSTANCES];
    size_t ninst;
} pb_config;

/* Parses and validates; on failure nothing is allocated and err holds one
 * line naming the file, the line and the problem. */
int pb_config_load_file(const char *path, pb_config *cfg, pb_err *err);
/* Same from text already in memory; `path` is only used in messages. */
int pb_config_load_text(const char *path, const char *name, const char *text, pb_config *cfg,
                        pb_err *err);
void pb_config_free(pb_config *cfg);

/* Keeps the instances whose label or module name is in the comma-separated
 * list; a name that matches nothing is an error. */
int pb_config_only(pb_config *cfg, const char *list, pb_err *err);

/* Adds the ceiling modules the sweep compares against (copy, and gather for
 * shuffles) for each device its instances run on, unless present. */
void pb_config_add_ceilings(pb_config *cfg);

/* "k1=v1 k2=v2" for the parameters of an instance (all of them). */
const char *pb_instance_params_text(const pb_instance *in, char *buf, size_t len);

uint64_t pb_fnv1a64(const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
