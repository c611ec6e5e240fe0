/* omp-topk: with 1, 2 and 3 threads it selects the same indices, and its
 * descriptor is complete. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"
#include "families/topk/topk_select.h"
#include "registry/registry.h"
#include "tests/test.h"
#include "tests/topk/topk_helpers.h"

/* ---- the module ---- */

/* omp-topk passes the check with 1, 2 and 3 threads, and its selection
 * (the same code) picks the same index set per row whatever the thread
 * count: the candidates are distinct, so the k best are one set. */
TEST_IMPL(topk_omp_threads)
{
    const tk_cfg cfgs[] = {
        {1000003, 1, 1, 0, 0, 1, PB_TOPK_UNIFORM, PB_TOPK_F32, 8, 0},
        {1000003, 32, 1, 0, 1, 1, PB_TOPK_EQUAL, PB_TOPK_F32, 8, 0},
        {1000003, 1000, 1, 0, 0, 0, PB_TOPK_NAN, PB_TOPK_F32, 8, 0},
        {1000003, 500001, 1, 0, 0, 1, PB_TOPK_NARROW128, PB_TOPK_F32, 8, 0},
        {1000003, 1000003, 1, 0, 0, 1, PB_TOPK_NORMAL, PB_TOPK_F32, 8, 0},
        {300000, 1000, 2, 1, 1, 1, PB_TOPK_ZIPF, PB_TOPK_F32, 8, 0},
        {300000, 100000, 2, 1, 1, 0, PB_TOPK_INF, PB_TOPK_U32, 8, 0},
        {10000, 33, 17, 1, 1, 1, PB_TOPK_UNIFORM, PB_TOPK_U32, 8, 0},
        {10000, 7000, 17, 1, 1, 0, PB_TOPK_EQUAL, PB_TOPK_F32, 8, 0},
        /* 64-bit keys: split long rows, a whole row, a batch. */
        {1000003, 1000, 1, 0, 1, 1, PB_TOPK_NAN, PB_TOPK_F64, 8, 0},
        {100003, 100003, 1, 0, 0, 0, PB_TOPK_NORMAL, PB_TOPK_F64, 8, 0},
        {300000, 100000, 2, 1, 1, 0, PB_TOPK_UNIFORM, PB_TOPK_U64, 8, 0},
        {10000, 33, 17, 1, 1, 1, PB_TOPK_ZIPF, PB_TOPK_U64, 8, 0},
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        pb_topk_problem p;
        ASSERT(tk_init(&p, &cfgs[c]) == 0);
        uint64_t outs = p.out_total;
        uint64_t *v = malloc((outs + 1) * 8); /* room for either word */
        uint32_t *ix[3], *tmp = malloc((outs + 1) * 4);
        for (int t = 0; t < 3; t++) {
            ASSERT(tk_run_module(&cfgs[c], t + 1) == 0);
            pb_topk_ws ws;
            pb_err err;
            ix[t] = malloc((outs + 1) * 4);
            ASSERT(pb_topk_ws_init(&ws, &p, t + 1, &err) == 0);
            pb_topk_select(&p, &ws, v, ix[t]);
            pb_topk_ws_free(&ws);
            ASSERT(pb_topk_check(&p, v, ix[t], &err) == 0);
        }
        for (uint64_t r = 0; r < p.rows; r++) {
            uint64_t o = p.out_off[r], m = p.out_off[r + 1] - o;
            for (int t = 0; t < 3; t++) pb_topk_sort_u32(ix[t] + o, tmp, (size_t)m);
            ASSERT(memcmp(ix[0] + o, ix[1] + o, m * 4) == 0);
            ASSERT(memcmp(ix[0] + o, ix[2] + o, m * 4) == 0);
        }
        free(v), free(tmp);
        for (int t = 0; t < 3; t++) free(ix[t]);
        pb_topk_problem_free(&p);
    }
    return 0;
}

TEST_IMPL(topk_module_descriptor)
{
    const pb_module *m = pb_module_find("cpu-topk");
    ASSERT(m && m->family == &pb_family_topk && m->device == PB_DEVICE_CPU);
    ASSERT(m->verify && m->work && !pb_module_sample_perms(m));
    const char *names[] = {"k", "rows", "ragged", "misalign", "largest", "dist", "dtype", "ties", "sorted"};
    for (int i = 0; i < PB_TOPK_NCOMMON; i++) ASSERT(pb_module_param_index(m, names[i]) == i);
    ASSERT(pb_module_param_index(m, "threads") == PB_TOPK_NCOMMON);
    pb_params params;
    pb_err err;
    pb_params_defaults(m, &params);
    ASSERT(params.v[PB_TOPK_P_K] == 32 && params.v[PB_TOPK_P_ROWS] == 1);
    ASSERT(params.v[PB_TOPK_P_LARGEST] == 1 && params.v[PB_TOPK_P_RAGGED] == 0);
    ASSERT(pb_params_set(m, &params, "dist", "narrow128", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_DIST] == PB_TOPK_NARROW128);
    ASSERT(pb_params_set(m, &params, "k", "2^31", &err) == 0);
    ASSERT(pb_params_set(m, &params, "k", "0", &err) != 0);
    ASSERT(pb_params_set(m, &params, "dtype", "f16", &err) == 0 && params.v[PB_TOPK_P_DTYPE] == PB_TOPK_F16);
    ASSERT(pb_params_set(m, &params, "dtype", "bf16", &err) == 0 && params.v[PB_TOPK_P_DTYPE] == PB_TOPK_BF16);
    ASSERT(pb_params_set(m, &params, "dtype", "f64", &err) == 0 &&
           params.v[PB_TOPK_P_DTYPE] == PB_TOPK_F64);
    ASSERT(pb_params_set(m, &params, "dtype", "u64", &err) == 0 &&
           params.v[PB_TOPK_P_DTYPE] == PB_TOPK_U64);
    ASSERT(pb_params_set(m, &params, "dtype", "f128", &err) != 0);
    ASSERT_CONTAINS(err.msg, "is not one of f32|u32|i32|f16|bf16|f64|u64");
    ASSERT(pb_params_set(m, &params, "dtype", "f32", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_TIES] == PB_TOPK_TIES_ANY);
    ASSERT(pb_params_set(m, &params, "ties", "lowest-index", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_TIES] == PB_TOPK_TIES_LOWEST);
    ASSERT(pb_params_set(m, &params, "ties", "first", &err) != 0);
    ASSERT_CONTAINS(err.msg, "is not one of any|lowest-index");
    ASSERT(params.v[PB_TOPK_P_SORTED] == 0);
    ASSERT(pb_params_set(m, &params, "sorted", "yes", &err) == 0 && params.v[PB_TOPK_P_SORTED] == 1);
    ASSERT(pb_params_set(m, &params, "sorted", "no", &err) == 0 && params.v[PB_TOPK_P_SORTED] == 0);
    ASSERT(pb_params_set(m, &params, "rows", "16", &err) == 0);
    ASSERT(pb_params_set(m, &params, "ragged", "yes", &err) == 0);
    /* Work: rows * n items, ragged too, 4 bytes each. */
    pb_point pt = {1 << 20, 4, 1, &params, 2};
    double items, bytes;
    m->work(&pt, &items, &bytes);
    ASSERT(items == 16.0 * (1 << 20) && bytes == 4 * items);
    ASSERT(m->footprint(&pt) >= 4 * (uint64_t)items);
    /* fp16: 2 bytes a value read; fp64 and u64: 8, and their input twice
     * fp32's on the host. */
    params.v[PB_TOPK_P_DTYPE] = PB_TOPK_F16;
    m->work(&pt, &items, &bytes);
    ASSERT(items == 16.0 * (1 << 20) && bytes == 2 * items);
    uint64_t fp32_bytes = m->footprint(&pt);
    for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64; dt++) {
        params.v[PB_TOPK_P_DTYPE] = dt;
        m->work(&pt, &items, &bytes);
        ASSERT(items == 16.0 * (1 << 20) && bytes == 8 * items);
        ASSERT(m->footprint(&pt) >= fp32_bytes + 4 * (uint64_t)items);
    }
    params.v[PB_TOPK_P_DTYPE] = PB_TOPK_F32;
    /* 8-byte items are refused with a reason. */
    pt.item_bytes = 8;
    void *state = NULL;
    ASSERT(m->prepare(&pt, &state, &err) != 0);
    ASSERT_CONTAINS(err.msg, "item must be u32");
    m->release(state);
    /* An empty point (n = 0): nothing to select, and that checks. */
    pb_params_defaults(m, &params);
    pb_point empty = {0, 4, 1, &params, 2};
    state = NULL;
    ASSERT(m->prepare(&empty, &state, &err) == 0);
    ASSERT(m->run(state, 0, &err) == 0 && m->verify(state, &err) == 0);
    m->release(state);
    return 0;
}

