/* The tile family's descriptor (core/family.h): block-level operations on
 * tiles of 32 x m 32-bit words in shared memory. */
#ifndef PB_TILE_FAMILY_H
#define PB_TILE_FAMILY_H

#include "core/family.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_family pb_family_tile;

#ifdef __cplusplus
}
#endif

#endif
