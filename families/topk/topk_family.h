/* The top-k family's descriptor (core/family.h). */
#ifndef PB_TOPK_FAMILY_H
#define PB_TOPK_FAMILY_H

#include "core/family.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_family pb_family_topk;

#ifdef __cplusplus
}
#endif

#endif
