/* thrust-shuffle: thrust::shuffle_copy from the CUDA toolkit, the vendor
 * peer a user would pick instead of ours (records: as a struct of R
 * bytes). Its temporary storage comes from a buffer allocated once per
 * point, so a sample times the shuffle and not cudaMalloc. */
#include <stdlib.h>

#include <thrust/execution_policy.h>
#include <thrust/random.h>
#include <thrust/shuffle.h>

#include "core/cuda_check.h"
#include "core/rng.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

namespace {

/* Hands thrust the same preallocated block every time (it asks for its
 * scan's temporary storage once per call). */
struct reuse_allocator {
    using value_type = char;
    char *block;
    size_t size;
    char *allocate(std::ptrdiff_t n)
    {
        if ((size_t)n > size) throw std::bad_alloc();
        return block;
    }
    void deallocate(char *, size_t) {}
};

struct state {
    void *bufs;
    uint64_t n, seed;
    unsigned item_bytes;
    reuse_allocator alloc;
};

template <typename T> int shuffle(state *s, uint64_t sample, pb_err *err)
{
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    /* default_random_engine is minstd_rand, seeded with 32 bits per sample. */
    thrust::default_random_engine g((unsigned)(pb_mix64(s->seed ^ pb_mix64(sample)) % 2147483646u) + 1);
    try {
        thrust::shuffle_copy(thrust::cuda::par(s->alloc).on(0), (const T *)b->d_in,
                             (const T *)b->d_in + s->n, (T *)b->d_out, g);
    } catch (const std::exception &e) {
        return pb_err_set(err, "thrust::shuffle_copy: %s", e.what());
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

/* A record of R bytes as the type a thrust user would declare for it: the
 * vendor's shuffle moves it as one value. The same bijection of places as
 * for 8-byte items (thrust draws it from the engine and n alone). */
template <unsigned R> struct record {
    uint64_t w[R / 8];
};

int prepare(const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    s->n = pt->n;
    s->seed = pt->seed;
    s->item_bytes = pt->item_bytes;
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    /* Thrust's scan needs a few bytes per tile of its padded domain; 1/16
     * of the items' bytes plus 16 MiB covers it with room to spare. */
    s->alloc.size = (size_t)(pt->n * pt->item_bytes / 16) + (16u << 20);
    PB_CUDA_TRY(cudaMalloc(&s->alloc.block, s->alloc.size), err);
    return 0;
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    if (s->n == 0) return 0;
    switch (s->item_bytes) {
    case 4: return shuffle<uint32_t>(s, sample, err);
    case 8: return shuffle<uint64_t>(s, sample, err);
    case 16: return shuffle<record<16>>(s, sample, err);
    case 64: return shuffle<record<64>>(s, sample, err);
    case 256: return shuffle<record<256>>(s, sample, err);
    case 1024: return shuffle<record<1024>>(s, sample, err);
    default: return pb_err_set(err, "gpu-thrust-shuffle: no record type of %u bytes", s->item_bytes);
    }
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    cudaFree(s->alloc.block);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    return pb_gpu_shuffle_footprint(pt) + pt->n * pt->item_bytes / 16 + (16u << 20);
}

} // namespace

PB_MODULE_DEF(thrust_shuffle, "gpu-thrust-shuffle", pb_shuffle_gpu_via_hooks,
    .summary = "thrust::shuffle_copy from the CUDA toolkit: the vendor peer",
    .footprint = footprint, .prepare = prepare, .run = run, .release = release);
