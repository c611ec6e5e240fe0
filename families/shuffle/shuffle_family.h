/* The shuffle family's descriptor (core/family.h). */
#ifndef PB_SHUFFLE_FAMILY_H
#define PB_SHUFFLE_FAMILY_H

#include "core/family.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_family pb_family_shuffle;

#ifdef __cplusplus
}
#endif

#endif
