/* The multisplit family's descriptor (core/family.h). */
#ifndef PB_MS_FAMILY_H
#define PB_MS_FAMILY_H

#include "core/family.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_family pb_family_multisplit;

#ifdef __cplusplus
}
#endif

#endif
