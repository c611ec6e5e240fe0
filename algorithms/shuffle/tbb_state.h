/* State shared by the oneTBB shuffle modules: the host shuffle buffers, a
 * task arena of the module's thread count (made once per point, so a run
 * does not pay for it), and optional scratch. C++ only. */
#ifndef PB_TBB_STATE_H
#define PB_TBB_STATE_H

#include <cstdlib>
#include <new>

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"

struct pb_tbb_state {
    pb_shuffle_buffers *b;
    tbb::task_arena *arena;
    void *scratch;
};

static inline void pb_tbb_release(void *state)
{
    pb_tbb_state *st = static_cast<pb_tbb_state *>(state);
    if (!st) return;
    pb_shuffle_release(st->b);
    delete st->arena;
    std::free(st->scratch);
    delete st;
}

/* An arena of `threads` threads; oneTBB never runs more workers than
 * cores, so a larger request gets the cores (and no warning). */
static inline tbb::task_arena *pb_tbb_arena(int threads)
{
    int cores = tbb::info::default_concurrency();
    return new (std::nothrow) tbb::task_arena(threads < 1 ? 1 : threads < cores ? threads : cores);
}

/* Buffers (in place or not), an arena of pt->threads, and scratch_bytes of
 * scratch. */
static inline int pb_tbb_prepare(const pb_point *pt, bool out_of_place, size_t scratch_bytes,
                                 void **state, pb_err *err)
{
    pb_tbb_state *st = new (std::nothrow) pb_tbb_state{nullptr, nullptr, nullptr};
    if (!st) return pb_err_set(err, "out of memory");
    if (pb_shuffle_buffers_new(pt, out_of_place, &st->b, err)) {
        delete st;
        return -1;
    }
    st->arena = pb_tbb_arena(pt->threads);
    if (scratch_bytes) st->scratch = std::malloc(scratch_bytes);
    if (!st->arena || (scratch_bytes && !st->scratch)) {
        pb_tbb_release(st);
        return pb_err_set(err, "cannot allocate %zu bytes of scratch", scratch_bytes);
    }
    *state = st;
    return 0;
}

static inline int pb_tbb_result(void *state, const void **out, pb_err *err)
{
    return pb_shuffle_result(static_cast<pb_tbb_state *>(state)->b, out, err);
}

/* Threads for a `threads` parameter value: 0 means all cores. */
static inline int pb_tbb_threads(long long param)
{
    return param > 0 ? static_cast<int>(param) : tbb::info::default_concurrency();
}

#endif
