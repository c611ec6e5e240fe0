/* How this binary was built (commit, dirty flag, compilers), generated at
 * every build by cmake/build_info.cmake; part of every result's provenance. */
#ifndef PB_BUILD_INFO_H
#define PB_BUILD_INFO_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_build_info {
    const char *version;
    const char *commit;
    const char *dirty; /* "yes", "no" or "unknown" */
    /* Where the commit came from: "git" (a work tree), "git-archive" (an
     * exported tree, cmake/git-archive.txt) or "none". */
    const char *commit_source;
    const char *build_type;
    const char *c_compiler;
    const char *cxx_compiler;
    const char *cuda_compiler; /* " " when built without CUDA */
    const char *cuda_archs;
    /* The architectures the binary holds, from cuda_archs: SASS (native
     * code) and PTX (compiled by the driver at load), comma-separated,
     * "" for none. */
    const char *cuda_sass;
    const char *cuda_ptx;
    /* The CCCL version cub-topk was compiled with ("3.6.0"; CMake's
     * PB_CCCL_ROOT or the toolkit's), "" where it was not built. */
    const char *cccl_topk;
} pb_build_info;

extern const pb_build_info pb_build;

#ifdef __cplusplus
}
#endif

#endif
