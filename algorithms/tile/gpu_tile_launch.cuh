/* What the three tile modules share on the host: the grid (one block a
 * tile), the m switch, the paper kernels' shared-memory opt-in. */
#ifndef PB_GPU_TILE_LAUNCH_CUH
#define PB_GPU_TILE_LAUNCH_CUH

#include "families/tile/gpu_tile_state.cuh"
#include "families/tile/tile_hooks.h"

/* F<M>(g, err) for the point's m (checked by the problem: 32..256). */
#define PB_TILE_DISPATCH_M(F, g, err)                                                              \
    do {                                                                                           \
        switch ((g)->prob.m) {                                                                     \
        case 32: return F<32>((g), (err));                                                         \
        case 64: return F<64>((g), (err));                                                         \
        case 128: return F<128>((g), (err));                                                       \
        case 256: return F<256>((g), (err));                                                       \
        default: return pb_err_set((err), "tile: m = %u", (g)->prob.m);                            \
        }                                                                                          \
    } while (0)

/* Dynamic shared memory beyond the default 48 KiB for a kernel. */
template <typename K> static int pb_tile_allow_smem(K kernel, size_t bytes, pb_err *err)
{
    PB_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
                err);
    return 0;
}

/* A tile module: its file brings `params`, prepare (its operation and
 * set-up) and run; the rest is the family's set. Every sample's fingerprint
 * must be its twin's (cpu_tile_twin.c: the C reference, or the simulator's
 * model of the kernel where the output is the method's own). */
#define PB_TILE_MODULE(op, text)                                                                   \
    PB_MODULE_DEF(tile_##op, "gpu-tile-" #op, pb_tile_gpu_hooks, .summary = text, PB_PARAMS(params),  \
        .prepare = prepare, .run = run, .reference = "cpu-tile-" #op "-twin")

#endif
