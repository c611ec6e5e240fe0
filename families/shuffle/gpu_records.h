/* Records on the device (item = rec*, shuffle_items.h): the gather a
 * module uses to move whole records once it has decided where each goes
 * (sort-shuffle sorts indices, then gathers). */
#ifndef PB_GPU_RECORDS_H
#define PB_GPU_RECORDS_H

#include <stdint.h>

#include "core/err.h"
#include "core/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads that copy one record side by side: a power of two, at most a
 * warp, no more than the record's 64-bit words (words = R / 8). Host and
 * device. */
PB_HDI unsigned pb_record_group(unsigned words)
{
    unsigned g = 1;
    while (g * 2 <= words && g < 32) g *= 2;
    return g;
}

/* out[i] = in[idx[i]] for n records of item_bytes, a thread group a record
 * (coalesced within each record), queued on `stream` (a cudaStream_t; NULL:
 * the default stream), not waited for. idx: 32-bit indices (n <= 2^32) or
 * 64-bit ones. */
int pb_gpu_gather_records_u32(const void *d_in, void *d_out, const uint32_t *d_idx, uint64_t n,
                              unsigned item_bytes, void *stream, pb_err *err);
int pb_gpu_gather_records_u64(const void *d_in, void *d_out, const uint64_t *d_idx, uint64_t n,
                              unsigned item_bytes, void *stream, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif
