/* The provenance object of results.json. */
#ifndef PB_PROVENANCE_H
#define PB_PROVENANCE_H

#include <jansson.h>
#include <stdint.h>

/* date, git commit and dirty flag, config path/name/hash/text, the data
 * files the plan checked, host, GPU (null with the reason when none),
 * compilers, command line. */
json_t *pb_provenance_json(const char *path, const char *name, const char *text, uint64_t hash,
                           int argc, char **argv);

/* The data files (`dist = file:PATH`) the plan checked: each one's
 * resolved path, size and SHA-256 of its bytes. */
json_t *pb_data_files_json(void);

/* The machine part alone (also printed by `permbench info --json`). */
json_t *pb_host_json(void);
json_t *pb_gpu_json(void);
/* How this binary was built: type, compilers and the CUDA architectures it
 * holds (the CMake list, and the SASS and PTX architectures it makes):
 * results.json's provenance.build, and `permbench info --json`'s. */
json_t *pb_build_json(void);

#endif
