/* What the distributed shuffle reports of the links between its devices
 * (pb_module.links): the devices, CUDA's peer access among them and
 * NCCL's account from its captured log (dist_nccl_log.h). */
#ifndef PB_DIST_TOPOLOGY_H
#define PB_DIST_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

namespace pb_dist {

/* The devices, CUDA's peer access among them and NCCL's account of the
 * links, e.g. "2 GPUs; NCCL 2.28.9: type NVL/PIX (NVLink), via P2P/CUMEM;
 * CUDA peer access 1 of 1 pairs", written into t (n bytes); false while
 * NCCL has not reported its links yet (ask again after a run). */
bool topology(uint32_t G, char *t, size_t n);

} // namespace pb_dist

#endif
