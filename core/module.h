/* The module descriptor: what every algorithm or baseline gives the harness.
 *
 * A module is one file (or folder) that defines a `const pb_module
 * pb_module_<id>` and is named once in registry/module_list.h. The harness only
 * ever talks to it through this table, so CPU and GPU modules, sequential and
 * parallel ones, are measured by the same loop. */
#ifndef PB_MODULE_H
#define PB_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/family.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_device { PB_DEVICE_CPU, PB_DEVICE_GPU } pb_device;

enum pb_module_flags {
    /* Output depends on the seed (a shuffle); copy-like ceilings do not. */
    PB_MOD_SEEDED = 1u << 0,
    /* A bandwidth ceiling: a peer the sweeps compare against, not an
     * algorithm (it may serve any family's sweep). */
    PB_MOD_CEILING = 1u << 1,
    /* Works on its input buffer in place. */
    PB_MOD_INPLACE = 1u << 2,
    /* The same seed may give different outputs (atomics decide, as in dart
     * throwing): outputs are still valid, but not reproducible. */
    PB_MOD_NONDETERMINISTIC = 1u << 3,
    /* Approximately uniform by design (a parameter trades time for bias,
     * as the POV-shuffle's iterations): the quality gate's `modules = all`
     * leaves it out and says so; a config that names it tests it. */
    PB_MOD_APPROXIMATE = 1u << 4,
};

typedef enum pb_param_type { PB_PARAM_INT, PB_PARAM_ENUM, PB_PARAM_BOOL } pb_param_type;

/* One parameter a module accepts. Integers carry their valid range; enums a
 * '|'-separated list of choices, their value being the choice's index. An
 * enum whose last choice is PB_CHOICE_FILE also takes `file:PATH`, a file
 * of raw keys (config/data_file.h): its value is then no choice's index but
 * a data file's (config/params.h: pb_param_file). A choice written `name:X`
 * takes an argument (`few:L` an integer, `masked:F` a fraction): its value
 * carries both (config/params.h: pb_param_choice, pb_param_arg). */
typedef struct pb_param_spec {
    const char *name;
    pb_param_type type;
    long long def;
    long long min, max;
    const char *choices;
    const char *help;
} pb_param_spec;

/* The last choice of an enum that takes a data file: `permbench list` shows
 * it as written, so the choices read "uniform|...|file:PATH". */
#define PB_CHOICE_FILE "file:PATH"

#define PB_MAX_PARAMS 32

/* Resolved values, indexed like the module's spec array. */
typedef struct pb_params {
    long long v[PB_MAX_PARAMS];
} pb_params;

/* One problem point: everything prepare() needs to build the input. */
typedef struct pb_point {
    uint64_t n;            /* items */
    unsigned item_bytes;   /* the item kind's width: 4 or 8, or a record's R (families/shuffle) */
    uint64_t seed;         /* the sweep's seed; run() derives per-sample keys from it */
    const pb_params *params;
    int threads;           /* CPU modules: threads to use (the 'threads' parameter, resolved) */
} pb_point;

/* The hooks every module of one kind shares (a family's buffers on one
 * device: families/<id>/<id>_hooks.h), so that a module names its set and
 * writes only what makes it different. A field of the module overrides the
 * set's; the registry resolves the two once (pb_module_resolve), so the
 * harness reads every hook straight from the module it is given. */
typedef struct pb_module_hooks {
    const pb_family *family;
    pb_device device;
    unsigned flags;
    uint64_t max_n;
    uint64_t (*footprint)(const pb_point *pt);
    int (*prepare)(const pb_point *pt, void **state, pb_err *err);
    int (*run)(void *state, uint64_t sample, pb_err *err);
    int (*result)(void *state, const void **out, pb_err *err);
    int (*verify)(void *state, pb_err *err);
    void (*release)(void *state);
    void (*work)(const pb_point *pt, double *items, double *bytes);
    int (*refresh)(void *state, pb_err *err);
    int (*fingerprint)(void *state, uint64_t *fp, pb_err *err);
    unsigned items;
    bool (*available)(const pb_params *params, char *why, size_t whylen);
    const void *ext;
} pb_module_hooks;

/* The fields in the order a descriptor names them: C++ (the .cu and .cpp
 * modules) takes designated initializers only in declaration order. */
typedef struct pb_module {
    const char *name;
    /* The set of hooks it shares with its kind (NULL: none, every hook is
     * its own). Its family, device, item classes, hooks and family
     * extension come from the set wherever the module leaves them unset;
     * the device always does. */
    const pb_module_hooks *hooks;
    const pb_family *family;
    pb_device device;
    unsigned flags; /* pb_module_flags; 0: its set's (a shuffle set's: seeded) */
    const char *summary;
    const pb_param_spec *params;
    size_t nparams;
    uint64_t max_n; /* largest n it supports; 0: its set's, else limited only by memory */

    /* Bytes it will allocate on its device for this point (host memory for
     * CPU modules), so a sweep that cannot fit is refused before it starts. */
    uint64_t (*footprint)(const pb_point *pt);
    /* Allocate and generate the input. Untimed. */
    int (*prepare)(const pb_point *pt, void **state, pb_err *err);
    /* The timed part. `sample` names the random stream: a module draws its
     * randomness from (seed, sample), so the run is reproducible; the
     * harness cycles a point's samples through a few streams (the sweep's
     * `streams`), so that each stream's expected output is computed once.
     * GPU modules launch on the default stream and return without
     * synchronising; the harness's events bracket the call. */
    int (*run)(void *state, uint64_t sample, pb_err *err);
    /* A host view of the output of the last run (GPU modules copy it back). */
    int (*result)(void *state, const void **out, pb_err *err);
    /* Checks the output against the family contract; NULL means the
     * family's own check on result(). Untimed, after every sample that has
     * no reference fingerprint to meet (below), so it must be cheap: GPU
     * modules check on the device or compare fingerprints. */
    int (*verify)(void *state, pb_err *err);
    void (*release)(void *state);

    /* Optional: the items a run processes and the bytes it must move at
     * least, for throughput and effective bandwidth. NULL: n items and the
     * family's own count (its bound_bytes). Modules whose work is not n
     * items of the point's width (a batch of top-k rows, a histogram that
     * only reads) say so here. */
    void (*work)(const pb_point *pt, double *items, double *bytes);

    /* Untimed, before every sample (warm-ups too): puts back the input of a
     * module that works in place and poisons every output buffer, so a run
     * that does nothing, does part of the work, or leaves an earlier
     * sample's output cannot pass the check after it. Every module has one. */
    int (*refresh)(void *state, pb_err *err);
    /* The fingerprint (core/fingerprint.h) of the last run's output,
     * computed where it lives (on the device for GPU modules). */
    int (*fingerprint)(void *state, uint64_t *fp, pb_err *err);
    /* The module whose output is, by construction and by test, this one's
     * bit for bit for the same point, parameters and sample: a GPU kernel's
     * C twin, or another fusion level of the same algorithm. The harness
     * runs it once for each random stream, checks its output, and compares
     * the fingerprint of every sample of this module with it. NULL: every
     * sample is checked by verify (or the family's check) instead. */
    const char *reference;

    /* The ceiling of this kind on its device (at most one module a device
     * and kind), which sweeps add and rows are compared with; NONE for
     * every other module. */
    pb_bound bound;

    /* PB_ITEM_CLASSES() of the item classes (core/family.h) it takes; 0:
     * its set's, or scalars only, so a module is asked to move records
     * only where it says it can. A sweep naming an item it does not take
     * is refused before anything runs. */
    unsigned items;

    /* Optional: whether it can run here beyond having a GPU (a build with
     * NCCL, as many GPUs as `devices` asks); false with `why` filled in.
     * params: the instance's resolved values, or NULL (then: at its
     * defaults). */
    bool (*available)(const pb_params *params, char *why, size_t whylen);

    /* Optional: the hooks only its family knows, of the type the family's
     * header names and reads (families/shuffle/shuffle_hooks.h: sample
     * permutations for the statistics, a multi-device run's links). */
    const void *ext;

    /* Optional: the code path a prepared point takes where the module has
     * several, chosen by its parameters, the point or the device (radik:
     * "cluster" or "multi-pass"); a short word, in every result row. NULL,
     * or NULL returned: one path. */
    const char *(*path)(void *state);
} pb_module;

/* `out` = desc with every field it leaves unset taken from its hook set
 * (a copy of desc when it has none). */
void pb_module_resolve(const pb_module *desc, pb_module *out);

/* Both fields of a descriptor's parameters, named: C++ (the .cu and .cpp
 * modules) takes no positional initializer after a designated one. */
#define PB_PARAMS(specs) .params = (specs), .nparams = (sizeof(specs) / sizeof((specs)[0]))

/* The registry, in C, declares every descriptor: a C++ module's needs C
 * linkage. */
#ifdef __cplusplus
#define PB_EXTERN_C extern "C"
#else
#define PB_EXTERN_C
#endif

/* A descriptor: `pb_module_<id>`, named `name_` in configs, on the hook
 * set `set`, then the fields that are its own in the order of pb_module
 * (summary, params, hooks, ...). */
#define PB_MODULE_DEF(id, name_, set, ...)                                                         \
    PB_EXTERN_C const pb_module pb_module_##id = {.name = name_, .hooks = &(set), __VA_ARGS__}

/* The common `threads` parameter of CPU-parallel modules (0: all cores). */
#define PB_PARAM_THREADS                                                                           \
    {"threads", PB_PARAM_INT, 0, 0, 4096, NULL, "worker threads (0: all cores)"}

const char *pb_device_name(pb_device d);

/* Index of a parameter in the module's spec array, or -1. */
int pb_module_param_index(const pb_module *m, const char *name);

/* Whether m takes items of its family's kind that is item_bytes wide (a
 * width the family does not know: no). */
bool pb_module_takes(const pb_module *m, unsigned item_bytes);
/* "u64, u32": the names of its family's items m takes, for messages. */
const char *pb_module_items_text(const pb_module *m, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
