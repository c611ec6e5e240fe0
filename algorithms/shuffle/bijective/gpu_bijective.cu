/* Host side of the GPU bijective shuffles: buffers, the per-sample
 * bijection, and the launches of each fusion level. */
#include <stdlib.h>

#include <type_traits>

#include "algorithms/shuffle/bijective/gpu_bijective.cuh"
#include "families/shuffle/shuffle_items.h"

using namespace pb_bijective;

enum { P_BIJECTION, P_ROUNDS };

const pb_param_spec pb_bijective_params[2] = {PB_BIJ_PARAMS};

namespace {

struct state {
    void *bufs; /* pb_gpu_shuffle_buffers: input, output, host copy */
    int variant;
    pb_bij_kind kind;
    int rounds;
    uint64_t m, domain, seed;
    unsigned item_bytes;
    bool wide;  /* 64-bit offsets: the padded domain exceeds 2^32 */
    int tiles;
    void *tile_state; /* bijective2: decoupled look-back descriptors */
    void *counts, *offsets; /* bijective1: per-tile counts and their scan */
    void *values, *selected, *num_selected; /* bijective0: f over the domain, the kept */
    void *temp; /* CUB temporary storage */
    size_t temp_bytes, tile_state_bytes;
};

uint64_t domain_of(uint64_t m) { return m ? UINT64_C(1) << pb_bij_bits(m) : 0; }
int tiles_of(uint64_t domain) { return (int)((domain + TILE - 1) / TILE); }
size_t offset_bytes(uint64_t domain) { return domain > (UINT64_C(1) << 32) ? 8 : 4; }
/* bijective0's compaction runs in chunks of this many positions. */
uint64_t select_chunk(uint64_t domain) { return domain < (UINT64_C(1) << 30) ? domain : UINT64_C(1) << 30; }

template <typename Offset> int prepare_typed(state *s, pb_err *err)
{
    if (s->variant == PB_BIJECTIVE2) {
        cub::ScanTileState<Offset>::AllocationSize(s->tiles, s->tile_state_bytes);
        PB_CUDA_TRY(cudaMalloc(&s->tile_state, s->tile_state_bytes), err);
    } else if (s->variant == PB_BIJECTIVE1) {
        PB_CUDA_TRY(cudaMalloc(&s->counts, s->tiles * sizeof(Offset)), err);
        PB_CUDA_TRY(cudaMalloc(&s->offsets, s->tiles * sizeof(Offset)), err);
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, s->temp_bytes, (Offset *)s->counts,
                                                  (Offset *)s->offsets, s->tiles),
                    err);
    } else {
        PB_CUDA_TRY(cudaMalloc(&s->values, s->domain * sizeof(Offset)), err);
        PB_CUDA_TRY(cudaMalloc(&s->selected, s->m * sizeof(Offset)), err);
        PB_CUDA_TRY(cudaMalloc(&s->num_selected, sizeof(Offset)), err);
        PB_CUDA_TRY(cub::DeviceSelect::If(nullptr, s->temp_bytes, (Offset *)s->values,
                                          (Offset *)s->selected, (Offset *)s->num_selected,
                                          (int64_t)select_chunk(s->domain), below<Offset>{s->m}),
                    err);
    }
    if (s->temp_bytes) PB_CUDA_TRY(cudaMalloc(&s->temp, s->temp_bytes), err);
    return 0;
}

/* bijective2's two launches on a stream: the tile descriptors' reset, then
 * the fused pass. */
template <int KIND, typename T, typename Offset>
int launch2(const T *in, T *out, unsigned words, uint64_t m, uint64_t domain, int tiles, const bijection<KIND> &f,
            void *tile_state, size_t tile_state_bytes, cudaStream_t stream, pb_err *err)
{
    cub::ScanTileState<Offset> ts;
    PB_CUDA_TRY(ts.Init(tiles, tile_state, tile_state_bytes), err);
    init_tile_state<<<(tiles + 32 + 127) / 128, 128, 0, stream>>>(ts, tiles);
    PB_CUDA_LAUNCHED(err);
    single_pass<KIND, T, Offset><<<tiles, BLOCK, 0, stream>>>(in, out, words, m, domain, f, ts);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

template <int KIND, typename T, typename Offset>
int run_typed(state *s, const bijection<KIND> &f, pb_err *err)
{
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    const T *in = (const T *)b->d_in;
    T *out = (T *)b->d_out;
    const unsigned words = s->item_bytes / 8; /* records only */
    if (s->variant == PB_BIJECTIVE2) {
        return launch2<KIND, T, Offset>(in, out, words, s->m, s->domain, s->tiles, f, s->tile_state,
                                        s->tile_state_bytes, 0, err);
    } else if (s->variant == PB_BIJECTIVE1) {
        count_tiles<KIND, Offset><<<s->tiles, BLOCK>>>(s->m, s->domain, f, (Offset *)s->counts);
        PB_CUDA_LAUNCHED(err);
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(s->temp, s->temp_bytes, (Offset *)s->counts,
                                                  (Offset *)s->offsets, s->tiles),
                    err);
        scan_gather<KIND, T, Offset>
            <<<s->tiles, BLOCK>>>(in, out, words, s->m, s->domain, f, (const Offset *)s->offsets);
        PB_CUDA_LAUNCHED(err);
    } else {
        evaluate_all<KIND, Offset><<<pb_grid_for(s->domain, BLOCK), BLOCK>>>(s->domain, f, (Offset *)s->values);
        PB_CUDA_LAUNCHED(err);
        /* CUB's select in chunks of at most 2^30: its streaming path for
         * more than INT_MAX items faulted (an illegal address at a domain
         * of 2^31, H200, CUDA 13.0); each further chunk needs the count so
         * far on the host (a wait; two at 2^31, none below 2^30). */
        const uint64_t chunk = select_chunk(s->domain);
        uint64_t kept = 0;
        for (uint64_t c0 = 0; c0 < s->domain; c0 += chunk) {
            const uint64_t len = s->domain - c0 < chunk ? s->domain - c0 : chunk;
            PB_CUDA_TRY(cub::DeviceSelect::If(s->temp, s->temp_bytes, (Offset *)s->values + c0,
                                              (Offset *)s->selected + kept, (Offset *)s->num_selected,
                                              (int64_t)len, below<Offset>{s->m}),
                        err);
            if (c0 + len < s->domain) {
                Offset got = 0;
                PB_CUDA_TRY(cudaMemcpy(&got, s->num_selected, sizeof got, cudaMemcpyDeviceToHost), err);
                kept += got;
            }
        }
        if constexpr (std::is_same<T, record_words>::value) {
            /* Records: gathered whole by the kept positions. */
            const Offset *sel = (const Offset *)s->selected;
            if constexpr (sizeof(Offset) == 8)
                return pb_gpu_gather_records_u64(in, out, (const uint64_t *)sel, s->m, s->item_bytes, NULL, err);
            else
                return pb_gpu_gather_records_u32(in, out, (const uint32_t *)sel, s->m, s->item_bytes, NULL, err);
        } else {
            pb_gather_by_index<T, Offset>
                <<<pb_grid_for(s->m, BLOCK), BLOCK>>>(in, out, (const Offset *)s->selected, s->m);
            PB_CUDA_LAUNCHED(err);
        }
    }
    return 0;
}

template <int KIND> int run_kind(state *s, const pb_bij &fb, pb_err *err)
{
    bijection<KIND> f{fb};
    if (pb_shuffle_is_record(s->item_bytes))
        return s->wide ? run_typed<KIND, record_words, uint64_t>(s, f, err)
                       : run_typed<KIND, record_words, uint32_t>(s, f, err);
    if (s->item_bytes == 4)
        return s->wide ? run_typed<KIND, uint32_t, uint64_t>(s, f, err)
                       : run_typed<KIND, uint32_t, uint32_t>(s, f, err);
    return s->wide ? run_typed<KIND, uint64_t, uint64_t>(s, f, err)
                   : run_typed<KIND, uint64_t, uint32_t>(s, f, err);
}

} // namespace

int pb_bijective_prepare(int variant, const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    s->variant = variant;
    s->kind = (pb_bij_kind)pt->params->v[P_BIJECTION];
    s->rounds = (int)pt->params->v[P_ROUNDS];
    s->m = pt->n;
    s->domain = domain_of(pt->n);
    s->seed = pt->seed;
    s->item_bytes = pt->item_bytes;
    s->wide = offset_bytes(s->domain) == 8;
    s->tiles = tiles_of(s->domain);
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    if (s->m == 0) return 0;
    return s->wide ? prepare_typed<uint64_t>(s, err) : prepare_typed<uint32_t>(s, err);
}

int pb_bijective_run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    if (s->m == 0) return 0;
    /* A fresh bijection per sample: its keys are part of the launch set-up. */
    pb_bij f;
    pb_bij_init(&f, s->kind, s->rounds, s->m, s->seed, sample);
    return s->kind == PB_BIJ_LCG ? run_kind<PB_BIJ_LCG>(s, f, err)
                                 : run_kind<PB_BIJ_VARPHILOX>(s, f, err);
}

void pb_bijective_release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    void *dev[] = {s->tile_state, s->counts, s->offsets, s->values, s->selected, s->num_selected, s->temp};
    for (void *p : dev) cudaFree(p);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t pb_bijective_footprint2(const pb_point *pt)
{
    return pb_gpu_shuffle_footprint(pt) + 16 * (uint64_t)(tiles_of(domain_of(pt->n)) + 64);
}

uint64_t pb_bijective_footprint1(const pb_point *pt)
{
    uint64_t d = domain_of(pt->n);
    return pb_gpu_shuffle_footprint(pt) + 2 * offset_bytes(d) * tiles_of(d) + (1u << 20);
}

uint64_t pb_bijective_footprint0(const pb_point *pt)
{
    uint64_t d = domain_of(pt->n);
    return pb_gpu_shuffle_footprint(pt) + offset_bytes(d) * (d + pt->n) + (16u << 20);
}

int pb_bijective_sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                              uint64_t count, uint32_t *out, pb_err *err)
{
    if (count == 0 || n == 0) return 0;
    if (count > INT32_MAX) return pb_err_set(err, "sample_perms: batch of %llu permutations is too large", (unsigned long long)count);
    uint32_t *d = nullptr;
    size_t bytes = (size_t)count * n * sizeof(uint32_t);
    PB_CUDA_TRY(cudaMalloc(&d, bytes), err);
    int rounds = (int)params->v[P_ROUNDS];
    if (params->v[P_BIJECTION] == PB_BIJ_LCG)
        sample_permutations<PB_BIJ_LCG><<<(unsigned)count, BLOCK>>>(n, rounds, seed, first, d);
    else
        sample_permutations<PB_BIJ_VARPHILOX><<<(unsigned)count, BLOCK>>>(n, rounds, seed, first, d);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpy(out, d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess) return pb_err_set(err, "sample_perms: %s", cudaGetErrorString(e));
    return 0;
}

/* ---- bijective2 on caller's buffers (the distributed shuffle's local step) ---- */

namespace {

template <int KIND, typename Offset>
int raw2_typed(const void *in, void *out, uint64_t m, unsigned item_bytes, const pb_bij &fb, void *scratch,
               size_t scratch_bytes, cudaStream_t stream, pb_err *err)
{
    bijection<KIND> f{fb};
    uint64_t domain = UINT64_C(1) << fb.bits;
    int tiles = tiles_of(domain);
    if (pb_shuffle_is_record(item_bytes))
        return launch2<KIND, record_words, Offset>((const record_words *)in, (record_words *)out, item_bytes / 8, m,
                                                   domain, tiles, f, scratch, scratch_bytes, stream, err);
    if (item_bytes == 4)
        return launch2<KIND, uint32_t, Offset>((const uint32_t *)in, (uint32_t *)out, 0, m, domain, tiles, f,
                                               scratch, scratch_bytes, stream, err);
    return launch2<KIND, uint64_t, Offset>((const uint64_t *)in, (uint64_t *)out, 0, m, domain, tiles, f, scratch,
                                           scratch_bytes, stream, err);
}

} // namespace

size_t pb_bijective2_scratch_bytes(uint64_t m_max)
{
    /* The widest descriptors (64-bit offsets) for the largest domain: enough
     * for every m <= m_max, narrow or wide. */
    size_t bytes = 0;
    cub::ScanTileState<uint64_t>::AllocationSize(tiles_of(domain_of(m_max ? m_max : 1)), bytes);
    return bytes;
}

int pb_bijective2_shuffle_async(const void *in, void *out, uint64_t m, unsigned item_bytes, pb_bij_kind kind,
                                int rounds, uint64_t seed, uint64_t stream_id, void *scratch, size_t scratch_bytes,
                                cudaStream_t stream, pb_err *err)
{
    if (m == 0) return 0;
    pb_bij f;
    pb_bij_init(&f, kind, rounds, m, seed, stream_id);
    bool wide = offset_bytes(domain_of(m)) == 8;
    if (kind == PB_BIJ_LCG)
        return wide ? raw2_typed<PB_BIJ_LCG, uint64_t>(in, out, m, item_bytes, f, scratch, scratch_bytes, stream, err)
                    : raw2_typed<PB_BIJ_LCG, uint32_t>(in, out, m, item_bytes, f, scratch, scratch_bytes, stream, err);
    return wide ? raw2_typed<PB_BIJ_VARPHILOX, uint64_t>(in, out, m, item_bytes, f, scratch, scratch_bytes, stream, err)
                : raw2_typed<PB_BIJ_VARPHILOX, uint32_t>(in, out, m, item_bytes, f, scratch, scratch_bytes, stream, err);
}
