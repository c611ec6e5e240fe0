#include "families/shuffle/shuffle_buffers.h"

#include <stdlib.h>

#include "families/shuffle/shuffle_items.h"

int pb_shuffle_buffers_new(const pb_point *pt, bool out_of_place, pb_shuffle_buffers **bufs,
                           pb_err *err)
{
    pb_shuffle_buffers *b = calloc(1, sizeof *b);
    size_t bytes = (size_t)pt->n * pt->item_bytes;
    if (!b) return pb_err_set(err, "out of memory");
    b->pt = *pt;
    b->params = *pt->params;
    b->pt.params = &b->params;
    /* malloc(0) may return NULL: keep a valid pointer for n = 0. */
    b->in = malloc(bytes ? bytes : 1);
    b->out = out_of_place ? malloc(bytes ? bytes : 1) : b->in;
    if (!b->in || !b->out) {
        pb_shuffle_release(b);
        return pb_err_set(err, "cannot allocate %zu bytes of host memory", bytes);
    }
    pb_shuffle_fill(b->in, pt->n, pt->item_bytes);
    *bufs = b;
    return 0;
}

int pb_shuffle_prepare_inplace(const pb_point *pt, void **state, pb_err *err)
{
    return pb_shuffle_buffers_new(pt, false, (pb_shuffle_buffers **)state, err);
}

int pb_shuffle_prepare_outofplace(const pb_point *pt, void **state, pb_err *err)
{
    return pb_shuffle_buffers_new(pt, true, (pb_shuffle_buffers **)state, err);
}

int pb_shuffle_result(void *state, const void **out, pb_err *err)
{
    (void)err;
    *out = ((pb_shuffle_buffers *)state)->out;
    return 0;
}

void pb_shuffle_release(void *state)
{
    pb_shuffle_buffers *b = state;
    if (!b) return;
    if (b->out != b->in) free(b->out);
    free(b->in);
    free(b->extra);
    free(b);
}

uint64_t pb_shuffle_footprint_inplace(const pb_point *pt) { return pt->n * pt->item_bytes; }

uint64_t pb_shuffle_footprint_outofplace(const pb_point *pt)
{
    return 2 * pt->n * pt->item_bytes;
}
