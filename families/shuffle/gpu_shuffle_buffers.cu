#include "families/shuffle/gpu_shuffle_buffers.h"

#include <stdlib.h>

#include "core/cuda_check.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_items.h"

template <typename T> __global__ void fill_items(T *out, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = (T)pb_shuffle_item(i, sizeof(T));
}

/* Records: one thread a 64-bit word (shuffle_items.h). */
__global__ void fill_records(uint64_t *out, uint64_t words_total, unsigned words)
{
    for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < words_total;
         w += (uint64_t)gridDim.x * blockDim.x)
        out[w] = pb_shuffle_record_word(w / words, w % words);
}

extern "C" int pb_gpu_shuffle_prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)calloc(1, sizeof *b);
    if (!b) return pb_err_set(err, "out of memory");
    b->pt = *pt;
    b->params = *pt->params;
    b->pt.params = &b->params;
    *state = b;
    size_t bytes = (size_t)pt->n * pt->item_bytes;
    /* A valid allocation even for n = 0, so kernels and copies need no
     * special case. */
    size_t alloc = bytes ? bytes : 16;
    PB_CUDA_TRY(cudaMalloc(&b->d_in, alloc), err);
    PB_CUDA_TRY(cudaMalloc(&b->d_out, alloc), err);
    if (pb_gpu_shuffle_refresh(b, err)) return -1;
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    return 0;
}

extern "C" int pb_gpu_shuffle_refresh(void *state, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    uint64_t n = b->pt.n;
    if (!n) return 0;
    unsigned blocks = (unsigned)((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    if (pb_shuffle_is_record(b->pt.item_bytes)) {
        uint64_t words = b->pt.item_bytes / 8, total = n * words;
        unsigned wblocks = (unsigned)((total + 255) / 256 < 65536 ? (total + 255) / 256 : 65536);
        fill_records<<<wblocks, 256>>>((uint64_t *)b->d_in, total, (unsigned)words);
    } else if (b->pt.item_bytes == 4) {
        fill_items<<<blocks, 256>>>((uint32_t *)b->d_in, n);
    } else {
        fill_items<<<blocks, 256>>>((uint64_t *)b->d_in, n);
    }
    PB_CUDA_LAUNCHED(err);
    /* Poison the output: a module that skips an item cannot pass. */
    PB_CUDA_TRY(cudaMemsetAsync(b->d_out, 0xa5, (size_t)n * b->pt.item_bytes), err);
    return 0;
}

extern "C" int pb_gpu_shuffle_fingerprint(void *state, uint64_t *fp, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    return pb_gpu_fingerprint(b->d_out, b->pt.n, b->pt.item_bytes, fp, err);
}

extern "C" int pb_gpu_shuffle_verify_copy(void *state, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    uint64_t fin, fout;
    if (pb_gpu_fingerprint(b->d_in, b->pt.n, b->pt.item_bytes, &fin, err) ||
        pb_gpu_fingerprint(b->d_out, b->pt.n, b->pt.item_bytes, &fout, err))
        return -1;
    if (fin != fout) return pb_err_set(err, "not a copy: the output's fingerprint is not the input's");
    return 0;
}

/* What the device check found: the first position holding an item that is
 * no input item, and the first holding one seen before. */
struct check_verdict {
    unsigned long long foreign, repeated, split;
};

template <typename T>
__global__ void check_items(const T *__restrict__ out, uint64_t n, unsigned long long *seen,
                            check_verdict *v)
{
    for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n;
         p += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t idx = pb_shuffle_item_index((uint64_t)out[p], sizeof(T));
        if (idx >= n) {
            atomicMin(&v->foreign, (unsigned long long)p);
            continue;
        }
        unsigned long long bit = 1ull << (idx & 63);
        if (atomicOr(&seen[idx >> 6], bit) & bit) atomicMin(&v->repeated, (unsigned long long)p);
    }
}

/* Records: a thread a record; word 0 names it, the others must be its own
 * (a record whose bytes did not travel together is `split`). */
__global__ void check_records(const uint64_t *__restrict__ out, uint64_t n, unsigned words,
                              unsigned long long *seen, check_verdict *v)
{
    for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n;
         p += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t *r = out + p * words;
        uint64_t idx = pb_shuffle_item_index(r[0], 8);
        if (idx >= n) {
            atomicMin(&v->foreign, (unsigned long long)p);
            continue;
        }
        bool whole = true;
        for (unsigned k = 1; k < words && whole; k++) whole = r[k] == pb_shuffle_record_word(idx, k);
        if (!whole) {
            atomicMin(&v->split, (unsigned long long)p);
            continue;
        }
        unsigned long long bit = 1ull << (idx & 63);
        if (atomicOr(&seen[idx >> 6], bit) & bit) atomicMin(&v->repeated, (unsigned long long)p);
    }
}

extern "C" int pb_gpu_shuffle_verify(void *state, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    uint64_t n = b->pt.n;
    if (!n) return 0;
    size_t words = (size_t)(n + 63) / 64;
    if (!b->d_seen) PB_CUDA_TRY(cudaMalloc(&b->d_seen, words * 8 + sizeof(check_verdict)), err);
    unsigned long long *seen = (unsigned long long *)b->d_seen;
    check_verdict *v = (check_verdict *)(seen + words), h = {~0ull, ~0ull, ~0ull};
    PB_CUDA_TRY(cudaMemsetAsync(seen, 0, words * 8), err);
    PB_CUDA_TRY(cudaMemcpyAsync(v, &h, sizeof h, cudaMemcpyHostToDevice), err);
    unsigned blocks = (unsigned)((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    if (pb_shuffle_is_record(b->pt.item_bytes))
        check_records<<<blocks, 256>>>((const uint64_t *)b->d_out, n, b->pt.item_bytes / 8, seen, v);
    else if (b->pt.item_bytes == 4)
        check_items<<<blocks, 256>>>((const uint32_t *)b->d_out, n, seen, v);
    else
        check_items<<<blocks, 256>>>((const uint64_t *)b->d_out, n, seen, v);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(cudaMemcpy(&h, v, sizeof h, cudaMemcpyDeviceToHost), err);
    if (h.foreign == ~0ull && h.repeated == ~0ull && h.split == ~0ull) return 0;
    /* The first bad position, and what it holds (one item, or a record's
     * first word, copied back). */
    uint64_t pos = h.foreign < h.repeated ? h.foreign : h.repeated, item = 0;
    pos = h.split < pos ? h.split : pos;
    PB_CUDA_TRY(cudaMemcpy(&item, (const char *)b->d_out + pos * b->pt.item_bytes,
                           b->pt.item_bytes < 8 ? b->pt.item_bytes : 8, cudaMemcpyDeviceToHost),
                err);
    if (pos == h.split)
        return pb_err_set(err, "not a permutation of whole records: the record at position %llu holds a word of "
                          "another record (its bytes did not travel together)",
                          (unsigned long long)pos);
    if (pos == h.foreign)
        return pb_err_set(err, "not a permutation: position %llu holds 0x%llx, which is no input item",
                          (unsigned long long)pos, (unsigned long long)item);
    return pb_err_set(err, "not a permutation: input item 0x%llx appears twice (again at position %llu)",
                      (unsigned long long)item, (unsigned long long)pos);
}

extern "C" int pb_gpu_shuffle_result(void *state, const void **out, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    size_t bytes = (size_t)b->pt.n * b->pt.item_bytes;
    if (!b->h_out) {
        b->h_out = malloc(bytes ? bytes : 1);
        if (!b->h_out) return pb_err_set(err, "cannot allocate %zu bytes of host memory", bytes);
    }
    PB_CUDA_TRY(cudaMemcpy(b->h_out, b->d_out, bytes, cudaMemcpyDeviceToHost), err);
    *out = b->h_out;
    return 0;
}

extern "C" void pb_gpu_shuffle_release(void *state)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    if (!b) return;
    /* Release must not fail; a sticky error would already have been reported. */
    cudaFree(b->d_in);
    cudaFree(b->d_out);
    cudaFree(b->d_seen);
    free(b->h_out);
    free(b);
}

extern "C" uint64_t pb_gpu_shuffle_footprint(const pb_point *pt)
{
    /* Input, output, and the check's bitmap of n bits. */
    return 2 * pt->n * pt->item_bytes + pt->n / 8 + 64;
}

extern "C" int pb_gpu_shuffle_result_via(void *state, const void **out, pb_err *err)
{
    return pb_gpu_shuffle_result(*(void **)state, out, err);
}

extern "C" int pb_gpu_shuffle_refresh_via(void *state, pb_err *err)
{
    return pb_gpu_shuffle_refresh(*(void **)state, err);
}

extern "C" int pb_gpu_shuffle_fingerprint_via(void *state, uint64_t *fp, pb_err *err)
{
    return pb_gpu_shuffle_fingerprint(*(void **)state, fp, err);
}

extern "C" int pb_gpu_shuffle_verify_via(void *state, pb_err *err)
{
    return pb_gpu_shuffle_verify(*(void **)state, err);
}
