/* NCCL's own account of the links (its graph search's path type and each
 * connection's transport), from its INFO log: NCCL_DEBUG=INFO into a file
 * of ours, set before the process's first NCCL call unless the caller set
 * NCCL_DEBUG (then: not captured). The file is removed at exit. */
#ifndef PB_DIST_NCCL_LOG_H
#define PB_DIST_NCCL_LOG_H

namespace pb_dist {

/* Points NCCL's log at our file, once a process. */
void nccl_log_capture(void);
/* The captured log's path, "" when there is none. */
const char *nccl_log_file(void);

} // namespace pb_dist

#endif
