/* dart-throwing: every item throws its index at a random one of 2n slots,
 * claiming it with an atomic compare-and-swap and throwing again on a
 * collision; the occupied slots, compacted in slot order (CUB
 * DeviceSelect), say where each item goes. Which item wins a contested slot
 * is decided by the hardware, so the result is valid but not reproducible. */
#include <stdlib.h>

#include <cub/cub.cuh>

#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "core/rng.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

namespace {

constexpr int BLOCK = 256;

/* 2n slots of 32-bit indices while 2n fits, else 64-bit. */
template <typename Slot> struct empty_slot {
    static constexpr Slot value = ~Slot(0);
};

template <typename Slot> struct occupied {
    __device__ __forceinline__ bool operator()(Slot s) const { return s != empty_slot<Slot>::value; }
};

/* Item i of permutation `stream` throws at random slots of slots[0, 2n),
 * attempt a drawing Philox(seed; i, stream, a). Slot numbers come from the
 * high half of a 64x64-bit product (Lemire's multiply-shift), which is
 * unbiased to within 2n / 2^64. */
template <typename Slot>
__device__ __forceinline__ void throw_dart(Slot *slots, uint64_t n, uint64_t i, uint64_t seed,
                                           uint64_t stream, Slot value)
{
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    for (uint32_t a = 0;; a++) {
        philox4x32_ctr_t c = {{(uint32_t)i, (uint32_t)(i >> 32), (uint32_t)stream, a}};
        philox4x32_ctr_t w = philox4x32(c, key);
        uint64_t r = (uint64_t)w.v[0] << 32 | w.v[1];
        uint64_t slot = __umul64hi(r, 2 * n);
        if (atomicCAS(slots + slot, empty_slot<Slot>::value, value) == empty_slot<Slot>::value) return;
    }
}

/* Every item of `count` permutations of n throws its dart, permutation j
 * into its own slots[2n j, 2n (j + 1)) as stream first + j. The timed run
 * is count = 1; the sample permutations the statistics test are drawn by
 * this same kernel (and the same compaction), a batch at a time, so they
 * are what run() times. The division by n is only taken for batches. */
template <typename Slot>
__global__ void throw_darts(Slot *slots, uint64_t n, uint64_t count, uint64_t seed, uint64_t first)
{
    uint64_t total = count * n;
    for (uint64_t g = blockIdx.x * (uint64_t)BLOCK + threadIdx.x; g < total;
         g += (uint64_t)gridDim.x * BLOCK) {
        uint64_t j = 0, i = g;
        if (count > 1) {
            j = g / n;
            i = g - j * n;
        }
        throw_dart(slots + j * 2 * n, n, i, seed, first + j, (Slot)i);
    }
}

struct state {
    void *bufs;
    uint64_t n, seed;
    unsigned item_bytes;
    bool wide;
    void *slots, *selected, *num_selected, *temp;
    size_t temp_bytes;
};

template <typename Slot> int prepare_typed(state *s, pb_err *err)
{
    PB_CUDA_TRY(cudaMalloc(&s->slots, 2 * s->n * sizeof(Slot)), err);
    PB_CUDA_TRY(cudaMalloc(&s->selected, s->n * sizeof(Slot)), err);
    PB_CUDA_TRY(cudaMalloc(&s->num_selected, sizeof(Slot)), err);
    PB_CUDA_TRY(cub::DeviceSelect::If(nullptr, s->temp_bytes, (Slot *)s->slots, (Slot *)s->selected,
                                      (Slot *)s->num_selected, (int64_t)(2 * s->n), occupied<Slot>()),
                err);
    PB_CUDA_TRY(cudaMalloc(&s->temp, s->temp_bytes), err);
    return 0;
}

int prepare(const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    s->n = pt->n;
    s->seed = pt->seed;
    s->item_bytes = pt->item_bytes;
    s->wide = 2 * pt->n >= UINT32_MAX;
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    if (s->n == 0) return 0;
    return s->wide ? prepare_typed<unsigned long long>(s, err) : prepare_typed<uint32_t>(s, err);
}

template <typename T, typename Slot> int run_typed(state *s, uint64_t sample, pb_err *err)
{
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    PB_CUDA_TRY(cudaMemsetAsync(s->slots, 0xff, 2 * s->n * sizeof(Slot)), err);
    throw_darts<Slot><<<pb_grid_for(s->n, BLOCK), BLOCK>>>((Slot *)s->slots, s->n, 1, s->seed, sample);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(cub::DeviceSelect::If(s->temp, s->temp_bytes, (Slot *)s->slots, (Slot *)s->selected,
                                      (Slot *)s->num_selected, (int64_t)(2 * s->n), occupied<Slot>()),
                err);
    pb_gather_by_index<T, Slot><<<pb_grid_for(s->n, BLOCK), BLOCK>>>((const T *)b->d_in, (T *)b->d_out,
                                                   (const Slot *)s->selected, s->n);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    if (s->n == 0) return 0;
    if (s->item_bytes == 4)
        return s->wide ? run_typed<uint32_t, unsigned long long>(s, sample, err)
                       : run_typed<uint32_t, uint32_t>(s, sample, err);
    return s->wide ? run_typed<uint64_t, unsigned long long>(s, sample, err)
                   : run_typed<uint64_t, uint32_t>(s, sample, err);
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    void *dev[] = {s->slots, s->selected, s->num_selected, s->temp};
    for (void *p : dev) cudaFree(p);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t slot = 2 * pt->n >= UINT32_MAX ? 8 : 4;
    return pb_gpu_shuffle_footprint(pt) + 3 * pt->n * slot + (16u << 20);
}

int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                 uint64_t count, uint32_t *out, pb_err *err)
{
    (void)params;
    if (count == 0 || n == 0) return 0;
    uint64_t slots_n = 2 * count * n;
    if (slots_n >= UINT32_MAX) return pb_err_set(err, "sample_perms: batch too large (2 * count * n >= 2^32)");
    uint32_t *slots = nullptr, *sel = nullptr, *num = nullptr;
    void *temp = nullptr;
    size_t temp_bytes = 0;
    cudaError_t e = cudaMalloc(&slots, slots_n * 4);
    if (e == cudaSuccess) e = cudaMalloc(&sel, count * n * 4);
    if (e == cudaSuccess) e = cudaMalloc(&num, 4);
    if (e == cudaSuccess)
        e = cub::DeviceSelect::If(nullptr, temp_bytes, slots, sel, num, (int64_t)slots_n, occupied<uint32_t>());
    if (e == cudaSuccess) e = cudaMalloc(&temp, temp_bytes);
    if (e == cudaSuccess) e = cudaMemsetAsync(slots, 0xff, slots_n * 4);
    if (e == cudaSuccess) {
        throw_darts<uint32_t><<<pb_grid_for(count * n, BLOCK), BLOCK>>>(slots, n, count, seed, first);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cub::DeviceSelect::If(temp, temp_bytes, slots, sel, num, (int64_t)slots_n, occupied<uint32_t>());
    if (e == cudaSuccess) e = cudaMemcpy(out, sel, count * n * 4, cudaMemcpyDeviceToHost);
    cudaFree(slots), cudaFree(sel), cudaFree(num), cudaFree(temp);
    if (e != cudaSuccess) return pb_err_set(err, "gpu-dart-throwing sample_perms: %s", cudaGetErrorString(e));
    return 0;
}

} // namespace

PB_SHUFFLE_MODULE(dart_throwing, "gpu-dart-throwing", pb_shuffle_gpu_via_hooks, sample_perms,
    .flags = PB_MOD_SEEDED | PB_MOD_NONDETERMINISTIC,
    .summary = "dart throwing: atomic claims of random slots among 2n, then CUB compaction",
    .footprint = footprint, .prepare = prepare, .run = run, .release = release,
    .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR));
