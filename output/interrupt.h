/* SIGINT and SIGTERM during a sweep: the first one asks the run to stop at
 * the end of the current sample (the point is dropped and measured again on
 * resume), the results so far are written, marked interrupted; a second one
 * ends the process at once, as the default action does. */
#ifndef PB_INTERRUPT_H
#define PB_INTERRUPT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handlers for SIGINT and SIGTERM. */
void pb_interrupt_install(void);
/* Whether a signal asked the run to stop; the signal's number, else 0. */
bool pb_interrupted(void);
int pb_interrupt_signal(void);

#ifdef __cplusplus
}
#endif

#endif
