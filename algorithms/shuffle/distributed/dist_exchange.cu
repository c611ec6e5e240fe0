#include "algorithms/shuffle/distributed/dist_exchange.h"

#include "core/cuda_check.h"

namespace pb_dist {

void plan_offsets(plan *p)
{
    uint32_t G = p->G;
    for (uint32_t d = 0; d < G; d++) p->part[d] = 0;
    for (uint32_t s = 0; s < G; s++) {
        uint64_t o = 0;
        for (uint32_t d = 0; d < G; d++) {
            p->send_off[s * G + d] = o;
            o += p->cnt[s * G + d];
            p->recv_off[s * G + d] = p->part[d];
            p->part[d] += p->cnt[s * G + d];
        }
    }
}

int plan_from_counts(const comms *c, const unsigned long long *h, plan *p, pb_err *err)
{
    const uint32_t G = c->G;
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaStreamSynchronize(c->st[g]), err);
    }
    p->G = G;
    for (uint32_t k = 0; k < G * G; k++) p->cnt[k] = h[k];
    plan_offsets(p);
    return 0;
}

int exchange(comms *c, const plan *p, void *const *send, void *const *recv, unsigned ib, const cudaStream_t *st,
             pb_err *err)
{
    uint32_t G = p->G;
    for (uint32_t s = 0; s < G; s++) {
        uint64_t k = p->cnt[s * G + s];
        if (!k) continue;
        PB_CUDA_TRY(cudaSetDevice((int)s), err);
        PB_CUDA_TRY(cudaMemcpyAsync((char *)recv[s] + p->recv_off[s * G + s] * ib,
                                    (const char *)send[s] + p->send_off[s * G + s] * ib, k * ib,
                                    cudaMemcpyDeviceToDevice, st[s]),
                    err);
    }
    if (G > 1) {
#ifdef PB_HAVE_NCCL
        PB_NCCL_TRY(ncclGroupStart(), err);
        for (uint32_t s = 0; s < G; s++)
            for (uint32_t d = 0; d < G; d++) {
                if (d == s) continue;
                /* s sends its block for d; s receives d's block for s. */
                uint64_t out = p->cnt[s * G + d], in = p->cnt[d * G + s];
                if (out)
                    PB_NCCL_TRY(ncclSend((const char *)send[s] + p->send_off[s * G + d] * ib, out * ib, ncclUint8,
                                         (int)d, c->c[s], st[s]),
                                err);
                if (in)
                    PB_NCCL_TRY(ncclRecv((char *)recv[s] + p->recv_off[d * G + s] * ib, in * ib, ncclUint8, (int)d,
                                         c->c[s], st[s]),
                                err);
            }
        PB_NCCL_TRY(ncclGroupEnd(), err);
#else
        return pb_err_set(err, "distributed shuffle: %u devices need NCCL, and this build has none", G);
#endif
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    return 0;
}

} // namespace pb_dist
