/* Functions shared by host and device code: in a CUDA source they are
 * compiled for both (and forced inline, as device code wants); in C they
 * are plain static inline functions. */
#ifndef PB_HD_H
#define PB_HD_H

#if defined(__CUDACC__)
#define PB_HDI __host__ __device__ __forceinline__
#else
#define PB_HDI static inline
#endif

#endif
