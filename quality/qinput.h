/* External inputs of the battery: permutations made outside permbench, in
 * a file or on standard input (quality/perm_io.h's formats), tested as an
 * instance beside the modules'. Named by `permbench quality --input FILE
 * --n N`, or by a config section:
 *
 *   [my-shuffle]
 *   input = perms.u32     ; relative to the config file's folder; "-": stdin
 *   n = 5
 *   format = u32          ; u32 (default), u64 or text
 *
 * The instance's module is pb_qinput_module, a descriptor with no code
 * that no registry lists: it gives the instance a name ("input") for the
 * tables and --only, and marks it as external. Its rows come from reading
 * the input in order, a batch at a time, where a module's come from its
 * sample hook: row j is draw j, so a file written by `permbench sample`
 * with seed S gives the tests what the module gives them with seed S. */
#ifndef PB_QINPUT_H
#define PB_QINPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "quality/perm_io.h"
#include "registry/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_module pb_qinput_module;

typedef struct pb_qinput {
    char label[PB_LABEL_MAX]; /* its instance's */
    char path[1024];          /* as given: in messages and results */
    char open_path[2048];     /* what is opened: a config's relative path from its folder */
    uint32_t n;
    pb_perm_format format;
    int line;                 /* of its config section; 0 from the command line */
} pb_qinput;

/* Whether an instance is an external input. */
bool pb_instance_is_input(const pb_instance *in);
/* "cpu", "gpu", or "external" for an input: the device column of results. */
const char *pb_qinstance_device(const pb_instance *in);

/* What reading an input found: filled as the battery reads it. */
typedef struct pb_qinput_seen {
    char label[PB_LABEL_MAX];
    uint64_t rows;   /* rows read and tested */
    uint64_t bytes;  /* the whole input's size */
    char sha256[65]; /* the whole input's SHA-256 */
} pb_qinput_seen;

#ifdef __cplusplus
}
#endif

#endif
