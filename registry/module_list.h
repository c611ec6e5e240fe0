/* The module registry, one line per module (the libuv test-list.h pattern).
 *
 * Adding a module is writing its file, which defines
 * `const pb_module pb_module_<id>`, and adding one PB_MODULE(<id>) line here.
 * Its name starts with its device, `cpu-` or `gpu-` (docs/modules.md).
 * GPU modules stand inside the PB_HAVE_CUDA block: a build without nvcc does
 * not contain them at all. This file is included with PB_MODULE defined to
 * whatever the includer needs (a declaration, a table entry). */

/* Shuffle family: sequential references */
PB_MODULE(fisher_yates)
PB_MODULE(gsl_shuffle)

/* Shuffle family: CPU shuffles */
PB_MODULE(bijective_twin)
PB_MODULE(grs_twin) /* the GPU Rao-Sandelius model */
PB_MODULE(rao_sandelius)
PB_MODULE(l2s_twin) /* gpu-l2-shuffle's order of the GPU Rao-Sandelius model */
PB_MODULE(merge_shuffle)
PB_MODULE(cpu_dart_throwing)
PB_MODULE(tbb_bijective)
PB_MODULE(tbb_sort_shuffle)
PB_MODULE(pov_shuffle) /* approximately uniform: iterations trade time for bias */
PB_MODULE(tbb_gather) /* the paper's TBB gather ceiling */
PB_MODULE(buffer_shuffle) /* data loaders' shuffles: approximately uniform */
PB_MODULE(shard_shuffle)
PB_MODULE(mosaic_shuffle)

/* Ceilings on the CPU */
PB_MODULE(cpu_copy)
PB_MODULE(cpu_gather)

/* Multisplit family: CPU (the C twin and an OpenMP multisplit) */
PB_MODULE(multisplit_twin)
PB_MODULE(omp_multisplit)

/* Top-k family: CPU reference */
PB_MODULE(omp_topk)

/* Tile family: the simulator's models of the tile kernels (their C twins and references) */
PB_MODULE(tile_partition_twin)
PB_MODULE(tile_sort_twin)
PB_MODULE(tile_permute_twin)

#ifdef PB_HAVE_CUDA
/* Shuffle family: GPU shuffles */
PB_MODULE(bijective0)
PB_MODULE(bijective1)
PB_MODULE(bijective2)
PB_MODULE(dart_throwing)
PB_MODULE(sort_shuffle)
PB_MODULE(thrust_shuffle)
PB_MODULE(gpu_pov_shuffle) /* approximately uniform; twin: cpu-pov-shuffle */
PB_MODULE(gpu_rao_sandelius) /* exactly uniform, coalesced passes; twin: cpu-rao-sandelius-twin */
PB_MODULE(gpu_l2_shuffle) /* gpu-rao-sandelius in the L2 order; twin: cpu-l2-shuffle-twin */
PB_MODULE(dist_shuffle) /* over G GPUs through NCCL */
PB_MODULE(dist_exchange) /* its all-to-all alone: the ceiling */

/* Multisplit family: the paper's kernels, references, building blocks */
PB_MODULE(multisplit) /* picks gpu-dms, gpu-wms or gpu-bms by m */
PB_MODULE(dms)
PB_MODULE(wms)
PB_MODULE(bms)
PB_MODULE(onesweep_ms) /* one pass with decoupled look-back: many buckets */
PB_MODULE(rb_sort)
PB_MODULE(cub_radix_sort)
PB_MODULE(cub_partition)
PB_MODULE(scan_split)
PB_MODULE(ms_sort)
PB_MODULE(ms_histogram)
PB_MODULE(cub_histogram)

/* Tile family: block-level partition, sort and permutation in shared memory */
PB_MODULE(tile_partition)
PB_MODULE(tile_sort)
PB_MODULE(tile_permute)

/* Top-k family: GPU */
PB_MODULE(radik) /* RadiK radix top-k with its optimisations */
PB_MODULE(sort_and_choose) /* CUB sort, then the first k: the reference */
PB_MODULE(cub_topk) /* CUB's DeviceTopK / DeviceBatchedTopK (CCCL 3.3+): a peer */

/* Ceilings on the GPU */
PB_MODULE(cuda_memcpy)
PB_MODULE(gpu_copy)
PB_MODULE(gpu_gather)
#endif
