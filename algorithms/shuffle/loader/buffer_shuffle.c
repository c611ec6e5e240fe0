/* buffer-shuffle: the streaming shuffle buffer of tf.data, torchdata,
 * Hugging Face datasets and WebDataset (loader_model.h, with the fill rule
 * of each; docs/loader-shuffles.md). Approximately uniform: an item can
 * come out at most B - 1 places early, so the bias falls with B / n. */
#include "algorithms/shuffle/loader/loader_module.h"

enum { P_THREADS = PB_LD_P_THREADS, P_BUFFER, P_FILL, P_INITIAL };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    PB_LD_BUFFER_PARAMS,
};

static uint64_t scratch_bytes(const pb_params *p, uint64_t n)
{
    pb_ld_buffer b = pb_ld_buffer_of(p, P_BUFFER);
    return 4 * pb_ld_buffer_scratch(n, &b);
}

static void shuffle(const pb_params *p, uint32_t n, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    pb_ld_buffer b = pb_ld_buffer_of(p, P_BUFFER);
    pb_ld_buffer_shuffle(NULL, n, &b, order, scratch, d);
}

PB_LD_MODULE(buffer_shuffle, "cpu-buffer-shuffle",
             "a data loader's streaming shuffle buffer of B items (tf.data, torchdata, Hugging Face, "
             "WebDataset fill rules); approximately uniform",
             params, pb_ld_no_check, scratch_bytes, shuffle);
