/* Module instances: what a module section of a config (run or quality)
 * stands for, resolved against the registry.
 *
 *   [bijective2-lcg]        ; the section name is the instance's label
 *   module = bijective2     ; defaults to the label; "a | b" takes the first
 *                           ; of these this build has and this machine can run
 *   bijection = lcg         ; any parameter the module accepts
 *
 *   [bms]
 *   buckets = 2, 4, 8 .. 256 *2
 *
 * One key of a section may hold a list (a value with ',' or '..'): the
 * section then stands for one instance per value, an axis in NVBench's
 * sense. One syntax: comma-separated items, and for integer parameters each
 * item may also be a range in the size syntax (config/sizes.h: "1 .. 32 +1",
 * "2 .. 256 *2"). One labelling rule: <section>/<param>=<value>, the value
 * in decimal for integers and as written otherwise; the section is the
 * instance's series (the line a figure draws). */
#ifndef PB_INSTANCE_H
#define PB_INSTANCE_H

#include <stdbool.h>

#include "config/ini.h"
#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instances a config may expand to (after lists), so a typo like
 * "rounds = 1 .. 10^9" is an error, not an hour of allocation. */
#define PB_MAX_INSTANCES 4096

/* The most seeds a point may be measured over (`seeds`, a run key of the
 * [sweep] and of a module section): each is a whole point's measurement. */
#define PB_MAX_SEEDS 64

typedef struct pb_instance {
    char label[PB_LABEL_MAX];  /* unique: <series>/<axis>=<value> when expanded */
    char series[PB_LABEL_MAX]; /* the section name */
    char axis[32];             /* the list-valued parameter, "" if none */
    char axis_value[32];       /* its value for this instance */
    const pb_module *mod;
    pb_params params;
    unsigned given;  /* bit i: parameter i was set in the config */
    int line;        /* of its section header; 0 if added by the harness */
    bool automatic;  /* added by the harness (a ceiling, `modules = all`) */
    int seeds;       /* `seeds = N` in its section (1 .. PB_MAX_SEEDS); 0: the sweep's */
    int seeds_line;  /* of that key; 0 if not given */
} pb_instance;

typedef struct pb_instances {
    pb_instance *v;
    size_t n, cap;
} pb_instances;

/* Appends the instances of one module section; errors name the file and
 * the line of the offending key. Besides `module`, the key `seeds` (the
 * seeds a run measures each point over) is the harness's, not a
 * parameter; a config kind without it refuses an instance that sets it. */
int pb_instances_add_section(pb_instances *list, const pb_ini *doc, const pb_ini_section *s,
                             pb_err *err);

/* Appends one instance of `m` at its defaults, labelled with its name, or
 * at `index` (0 = the front). Returns it, or NULL when out of memory. */
pb_instance *pb_instances_insert(pb_instances *list, size_t index, const pb_module *m);

/* Keeps the instances whose label, series or module name is in the
 * comma-separated `only`; a name that matches none is an error. */
int pb_instances_only(pb_instances *list, const char *only, const char *path, pb_err *err);

/* Checks that this machine can run every instance. Those it cannot are
 * dropped when `skip` (each reported through `skipped`, which may be NULL),
 * else the first is an error naming its section and the `head` section
 * whose skip_unavailable would skip it. None left is an error too. */
int pb_instances_available(pb_instances *list, bool skip, const char *path, const char *head,
                           void (*skipped)(const pb_instance *in, const char *why, void *user),
                           void *user, pb_err *err);

/* Index of the instance labelled `label` or of series `label`, or -1. */
long pb_instances_find(const pb_instances *list, const char *label);

void pb_instances_free(pb_instances *list);

/* The threads a CPU instance runs with (its resolved `threads` parameter,
 * 0 meaning all cores; 1 for sequential modules); 0 for GPU modules. */
int pb_instance_threads(const pb_instance *in);

/* Its parameters with `threads` resolved to pb_instance_threads. */
void pb_instance_resolved_params(const pb_instance *in, pb_params *out);

/* "k1=v1 k2=v2" for the parameters of an instance (all of them). */
const char *pb_instance_params_text(const pb_instance *in, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
