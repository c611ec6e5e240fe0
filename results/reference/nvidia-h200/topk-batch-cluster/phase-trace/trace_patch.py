import sys
def rep(s, old, new, p):
    if old not in s: sys.exit('anchor missing in %s: %s' % (p, old[:60]))
    return s.replace(old, new, 1)
hdr='''
#ifdef PB_RADIK_CLW_TRACE
__device__ unsigned long long pb_clw_trace[8192][10];
#define PB_CLW_T(i) do { __syncthreads(); if (threadIdx.x == 0) { unsigned long long g_; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g_)); unsigned bi_ = blockIdx.y * gridDim.x + blockIdx.x; if (bi_ < 8192) { pb_clw_trace[bi_][i] = g_; if (i == 0) { unsigned sm_; asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_)); pb_clw_trace[bi_][9] = sm_; } } } } while (0)
#else
#define PB_CLW_T(i) do {} while (0)
#endif
'''
p='algorithms/topk/radik/radik_cluster_block.cuh'; s=open(p).read()
s=rep(s,'#include "algorithms/topk/radik/radik_tuning.h"\n','#include "algorithms/topk/radik/radik_tuning.h"\n'+hdr,p); open(p,'w').write(s)
p='algorithms/topk/radik/radik_cluster_w.cuh'; s=open(p).read()
s=rep(s,'''    if (take == 0) return; /* the whole cluster: the row is its own */
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.c.lane[i] = 0;''','''    if (take == 0) return; /* the whole cluster: the row is its own */
    PB_CLW_T(0);
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.c.lane[i] = 0;''',p)
s=rep(s,'''    w.pb = w.pa + per < np ? w.pa + per : np;
    __syncthreads();
''','''    w.pb = w.pa + per < np ? w.pa + per : np;
    __syncthreads();
    PB_CLW_T(1);
''',p)
s=rep(s,'''        const K thr = pb_radik_clw_sample<DT, LG>(s, at, w, row, salt, r, &ties);
        if ((uint64_t)(r + ties) * w.len <= room) {
            pb_radik_clw_gather<DT, LG>(s, cand, w, thr);''','''        const K thr = pb_radik_clw_sample<DT, LG>(s, at, w, row, salt, r, &ties);
        PB_CLW_T(2);
        if ((uint64_t)(r + ties) * w.len <= room) {
            pb_radik_clw_gather<DT, LG>(s, cand, w, thr);
            PB_CLW_T(3);''',p)
s=rep(s,'''    /* Reads until the keys at or above the digits found fit one block. */''','''    PB_CLW_T(4);
    /* Reads until the keys at or above the digits found fit one block. */''',p)
s=rep(s,'''    __cluster_barrier_arrive();
    const pb_radik_clw_dest<K> d''','''    PB_CLW_T(5);
    __cluster_barrier_arrive();
    const pb_radik_clw_dest<K> d''',p)
s=rep(s,'''        pb_radik_clw_write_read<DT, LG>(s, w, d, false);
    __cluster_barrier_wait();''','''        pb_radik_clw_write_read<DT, LG>(s, w, d, false);
    PB_CLW_T(6);
    __cluster_barrier_wait();
    PB_CLW_T(7);''',p)
open(p,'w').write(s)
p='algorithms/topk/radik/radik_cluster.cuh'; s=open(p).read()
s=rep(s,'''    if (take == 0) return; /* the whole cluster: the row is its own */
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.lane[i] = 0;''','''    if (take == 0) return; /* the whole cluster: the row is its own */
    PB_CLW_T(0);
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.lane[i] = 0;''',p)
s=rep(s,'''                                     (k0 < 0 ? 0 : k0 > w.len ? w.len : k0));
    __syncthreads();
''','''                                     (k0 < 0 ? 0 : k0 > w.len ? w.len : k0));
    __syncthreads();
    PB_CLW_T(1);
''',p)
s=rep(s,'''        thr = pb_radik_cl_sample<DT, LG>(s, at, w, row, salt, r, &ties);
    if (ties && (uint64_t)(r + ties) * w.len <= room) {
        const uint32_t thr2 = pb_topk_raw_of(thr, DT, LG) * 0x00010001u;
        pb_radik_cl_gather<DT, LG>(s, cand, w, thr2, false);
        __syncthreads();''','''        thr = pb_radik_cl_sample<DT, LG>(s, at, w, row, salt, r, &ties);
    PB_CLW_T(2);
    if (ties && (uint64_t)(r + ties) * w.len <= room) {
        const uint32_t thr2 = pb_topk_raw_of(thr, DT, LG) * 0x00010001u;
        pb_radik_cl_gather<DT, LG>(s, cand, w, thr2, false);
        __syncthreads();
        PB_CLW_T(3);''',p)
s=rep(s,'''            pb_radik_cl_pivot_key<LG>(s, cl, C, b, take, false);
            __cluster_barrier_arrive();''','''            pb_radik_cl_pivot_key<LG>(s, cl, C, b, take, false);
            PB_CLW_T(5);
            __cluster_barrier_arrive();''',p)
s=rep(s,'''            if (pb_radik_cl_write_cands<DT, LG>(s, cand, nc, d))
                pb_radik_cl_write_read<DT, LG>(s, w, d, false);
        } else {''','''            if (pb_radik_cl_write_cands<DT, LG>(s, cand, nc, d))
                pb_radik_cl_write_read<DT, LG>(s, w, d, false);
            PB_CLW_T(6);
        } else {''',p)
s=rep(s,'''    }
    __cluster_barrier_wait();
#endif
}''','''    }
    __cluster_barrier_wait();
    PB_CLW_T(7);
#endif
}''',p)
open(p,'w').write(s)
p='algorithms/topk/radik/radik_cluster.cu'; s=open(p).read()
s+=open('/work/xres/s6/trace_dump.inc').read()
open(p,'w').write(s)
p='algorithms/topk/radik/radik.cu'; s=open(p).read()
s=rep(s,'''    PB_CUDA_TRY(cudaGraphLaunch(r->exec, 0), err);
    return 0;''','''    PB_CUDA_TRY(cudaGraphLaunch(r->exec, 0), err);
#ifdef PB_RADIK_CLW_TRACE
    if (sample == 5 && r->cluster) pb_radik_clw_trace_dump((unsigned)g->prob.rows, (unsigned long long)g->prob.max_len, (unsigned long long)g->prob.k, g->prob.dtype, r->cl_blocks);
#endif
    return 0;''',p)
s=rep(s,'namespace {','#ifdef PB_RADIK_CLW_TRACE\nvoid pb_radik_clw_trace_dump(unsigned rows, unsigned long long n, unsigned long long k, int dtype, unsigned blocks);\n#endif\nnamespace {',p)
open(p,'w').write(s)
