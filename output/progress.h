/* The progress line on stderr: points done, what runs now, time left. On a
 * terminal it rewrites one line; in a log it prints a line every few seconds. */
#ifndef PB_PROGRESS_H
#define PB_PROGRESS_H

#include <stddef.h>

#include "registry/instance.h"

void pb_progress_update(size_t done, size_t total, double eta_s, const pb_instance *in, uint64_t n);
/* Erases the line before other output goes to the terminal. */
void pb_progress_clear(void);
void pb_progress_done(size_t total, double wall_s);

/* "1h02m", "3m05s", "12s" */
const char *pb_duration_format(double s, char *buf, size_t len);

#endif
