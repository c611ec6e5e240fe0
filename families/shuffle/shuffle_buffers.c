#include "families/shuffle/shuffle_buffers.h"

#include <stdlib.h>
#include <string.h>

#include "core/fingerprint.h"
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

int pb_shuffle_refresh(void *state, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    if (b->out == b->in) pb_shuffle_fill(b->in, b->pt.n, b->pt.item_bytes);
    else memset(b->out, 0xa5, (size_t)b->pt.n * b->pt.item_bytes);
    return 0;
}

int pb_shuffle_fingerprint(void *state, uint64_t *fp, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    *fp = pb_fingerprint(b->out, b->pt.n, b->pt.item_bytes);
    return 0;
}

int pb_shuffle_verify_copy(void *state, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    size_t w = b->pt.item_bytes;
    const unsigned char *in = b->in, *out = b->out;
    if (memcmp(in, out, (size_t)b->pt.n * w) == 0) return 0;
    for (uint64_t i = 0; i < b->pt.n; i++)
        if (memcmp(in + i * w, out + i * w, w) != 0)
            return pb_err_set(err, "not a copy: position %llu differs from the input",
                              (unsigned long long)i);
    return pb_err_set(err, "not a copy of the input");
}

int pb_shuffle_result_via(void *state, const void **out, pb_err *err)
{
    return pb_shuffle_result(*(void **)state, out, err);
}

int pb_shuffle_refresh_via(void *state, pb_err *err) { return pb_shuffle_refresh(*(void **)state, err); }

int pb_shuffle_fingerprint_via(void *state, uint64_t *fp, pb_err *err)
{
    return pb_shuffle_fingerprint(*(void **)state, fp, err);
}
