/* The shuffle family's hook sets and the hooks only shuffles have.
 *
 * A shuffle module names the set of its buffers (pb_module.hooks) and writes
 * its prepare, run and footprint where they are its own. What no other
 * family has, the sample permutations the statistics draw and a
 * multi-device run's links, is its family extension (pb_module.ext, a
 * pb_shuffle_hooks): quality/ and bench/ reach it through the accessors
 * below, never through core/module.h. */
#ifndef PB_SHUFFLE_HOOKS_H
#define PB_SHUFFLE_HOOKS_H

#include "core/module.h"
#include "families/shuffle/shuffle_family.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A multi-device run's traffic (pb_shuffle_hooks.links). */
typedef struct pb_link_report {
    double bytes;       /* payload bytes the last run sent between devices (a device's own block excluded) */
    char topology[256]; /* the devices and their links as the transport reports them, e.g.
                           "2 GPUs; NCCL 2.28.3: type NVL/PIX (NVLink), via P2P/direct; ..." */
} pb_link_report;

/* Sample permutations for the statistics. Writes `count` permutations of
 * [0, n) to out[count * n], permutation j drawn for sample index first + j
 * of `seed`, each independent of the others, by the module's own code path
 * (its kernels on a GPU), so the statistics test what run() times.
 * `params` are resolved (threads > 0). The caller batches: `first` lets a
 * long series come in several calls and stay the same series (for
 * deterministic modules). */
typedef int (*pb_sample_perms_fn)(const pb_params *params, uint32_t n, uint64_t seed,
                                  uint64_t first, uint64_t count, uint32_t *out, pb_err *err);
/* Modules spread over several devices: what the last run sent from one
 * device to another, and over what. Untimed, after each sample; the harness
 * reports the bytes (their median over samples, and that over the median
 * time) and the topology with the row. */
typedef int (*pb_links_fn)(void *state, pb_link_report *report, pb_err *err);

typedef struct pb_shuffle_hooks {
    pb_sample_perms_fn sample_perms; /* optional: NULL, the battery cannot test it */
    pb_links_fn links;               /* optional: NULL, it runs on one device */
} pb_shuffle_hooks;

/* m's shuffle hooks: NULL for a module of another family or one without. */
static inline const pb_shuffle_hooks *pb_shuffle_hooks_of(const pb_module *m)
{
    return m->family == &pb_family_shuffle ? (const pb_shuffle_hooks *)m->ext : NULL;
}
static inline pb_sample_perms_fn pb_module_sample_perms(const pb_module *m)
{
    const pb_shuffle_hooks *h = pb_shuffle_hooks_of(m);
    return h ? h->sample_perms : NULL;
}
static inline pb_links_fn pb_module_links(const pb_module *m)
{
    const pb_shuffle_hooks *h = pb_shuffle_hooks_of(m);
    return h ? h->links : NULL;
}

/* A shuffle module's descriptor (PB_MODULE_DEF) with its family extension:
 * sample permutations drawn by `perms`, the module's own code path. */
#define PB_SHUFFLE_MODULE(id, name_, set, perms, ...)                                              \
    static const pb_shuffle_hooks id##_shuffle_ext = {.sample_perms = perms, .links = NULL};       \
    PB_MODULE_DEF(id, name_, set, __VA_ARGS__, .ext = &id##_shuffle_ext)

/* The sets (shuffle_hooks.c, gpu_shuffle_hooks.cu). Their modules are
 * seeded (a ceiling that is not says so in its own flags). */
/* Host buffers, the input shuffled in place (PB_MOD_INPLACE):
 * pb_shuffle_buffers_new. */
extern const pb_module_hooks pb_shuffle_cpu_inplace_hooks;
/* Host buffers, a separate output. */
extern const pb_module_hooks pb_shuffle_cpu_outofplace_hooks;
/* A state that begins with a pointer to its pb_shuffle_buffers (scratch
 * beside it): the module brings prepare and release. */
extern const pb_module_hooks pb_shuffle_cpu_via_hooks;
/* Device buffers as the state (the ceilings); records taken. */
extern const pb_module_hooks pb_shuffle_gpu_hooks;
/* A state that begins with a pointer to its pb_gpu_shuffle_buffers: the
 * module brings footprint, prepare and release; records taken. */
extern const pb_module_hooks pb_shuffle_gpu_via_hooks;

#ifdef __cplusplus
}
#endif

#endif
